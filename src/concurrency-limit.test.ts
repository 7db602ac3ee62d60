import { describe, expect, it } from "vitest";
import { createConcurrencyLimit } from "./concurrency-limit.ts";

/** Work that runs until `finish` is called, recording when it started. */
function controlledWork(started: number[], id: number) {
  let finish: (outcome: "done" | "fail") => void = () => {};
  const work = () =>
    new Promise<number>((resolve, reject) => {
      started.push(id);
      finish = (outcome) => (outcome === "done" ? resolve(id) : reject(new Error(`work ${id} failed`)));
    });
  return { work, finish: (outcome: "done" | "fail") => finish(outcome) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("createConcurrencyLimit", () => {
  it("runs at most `places` pieces of work at once, the waiting ones in arrival order", async () => {
    const admit = createConcurrencyLimit({ places: 2 });
    const started: number[] = [];
    const works = [0, 1, 2, 3, 4].map((id) => controlledWork(started, id));
    const results = works.map(({ work }) => admit(work));
    await settle();
    expect(started).toEqual([0, 1]);
    works[1]?.finish("done");
    await settle();
    expect(started).toEqual([0, 1, 2]);
    // A failed piece of work gives its place back too, and its caller gets the failure.
    works[0]?.finish("fail");
    await expect(results[0]).rejects.toThrow("work 0 failed");
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    works[2]?.finish("done");
    works[3]?.finish("done");
    await settle();
    works[4]?.finish("done");
    expect(await Promise.all(results.slice(1))).toEqual([1, 2, 3, 4]);
    // Every place is free again: two new pieces start at once.
    const more = [5, 6].map((id) => controlledWork(started, id));
    const moreResults = more.map(({ work }) => admit(work));
    await settle();
    expect(started.slice(-2)).toEqual([5, 6]);
    for (const { finish } of more) finish("done");
    expect(await Promise.all(moreResults)).toEqual([5, 6]);
  });

  it("with no places set, runs everything at once", async () => {
    const admit = createConcurrencyLimit({ places: 0 });
    const started: number[] = [];
    const works = [0, 1, 2, 3].map((id) => controlledWork(started, id));
    const results = works.map(({ work }) => admit(work));
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const { finish } of works) finish("done");
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3]);
  });
});
