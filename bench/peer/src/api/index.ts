import { Hono } from "hono";

// Ponder requires an API; the benchmark only asks its built-in /ready.
export default new Hono();
