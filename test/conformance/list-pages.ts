import type { Endpoint } from "../../src/api/define-endpoint.ts";
import { at } from "../support/elements.ts";
import type { IndexedChain } from "../support/indexed-chain.ts";
import { exactCursor, type Fetched, fetchJson } from "./demo-chain.ts";
import { caseUrl, type ListCase, listCases } from "./list-cases.ts";

/** One fetched page of a list endpoint. */
export type ListPage = { endpoint: Endpoint; page: Fetched };

/** Pages fetched per request variant: the first, one in the middle and the last. */
async function pagesOf(chain: IndexedChain, entry: ListCase): Promise<Fetched[]> {
  const pages: Fetched[] = [];
  let cursor: Record<string, unknown> | null = {};
  while (cursor) {
    const page = await fetchJson(chain.app, caseUrl(entry, cursor as Record<string, string>));
    pages.push(page);
    if (page.status !== 200 || pages.length > 40) break;
    cursor = exactCursor(page.text);
  }
  return pages.length > 3 ? [at(pages, 0), at(pages, Math.floor(pages.length / 2)), at(pages, -1)] : pages;
}

/** Every page the suite checks on `chain`: each list case's first, middle and last page, by endpoint. */
export async function fetchListPages(chain: IndexedChain): Promise<ListPage[]> {
  const pages: ListPage[] = [];
  for (const entry of await listCases(chain.test.db)) {
    for (const page of await pagesOf(chain, entry)) pages.push({ endpoint: entry.endpoint, page });
  }
  return pages;
}

/** Problems without item positions or values, each once: one line per kind of fault. */
export function distinct(problems: string[]): string[] {
  return [
    ...new Set(
      problems.map((problem) =>
        problem
          .replace(/\/items\/\d+|items\[\d+\]/g, "/items/*")
          .replace(/\[\d+\]|\/\d+\//g, "/*/")
          .replace(/, got .*$/, ""),
      ),
    ),
  ].sort();
}

/** The pages of `endpoint` among `pages`; throws where there is none, which would make a check vacuous. */
export function pagesOfEndpoint(pages: ListPage[], endpoint: Endpoint): Fetched[] {
  const own = pages.filter((entry) => entry.endpoint === endpoint).map((entry) => entry.page);
  if (own.length === 0) throw new Error(`no page of ${endpoint.schema.operationId} was fetched`);
  return own;
}
