#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx registers its loader, then the CLI takes over.
import { register } from "tsx/esm/api";

// The largest dependencies first, through Node's own loader: every module loaded once tsx is registered
// passes through its hooks on another thread, and these are most of the process's modules (viem alone some
// hundreds). A start took 4.3 CPU-seconds here without them first, 2.4 with them.
await Promise.all(
  [
    "viem",
    "viem/utils",
    "viem/account-abstraction",
    "fastify",
    "@fastify/swagger",
    "@fastify/cors",
    "@scalar/fastify-api-reference",
    "@electric-sql/pglite",
    "postgres",
    "pino",
    "prom-client",
    "undici",
  ].map((name) => import(name)),
);
register();
await import("../src/cli.ts");
