import { describe, expect, it } from "vitest";
import { FORGOTTEN_SOURCE, TrackedRuns } from "./tracked-runs.js";

describe("TrackedRuns", () => {
  it("keeps a tainted run's mark without its content when room is needed, clean runs going first", () => {
    const runs = new TrackedRuns(2, 10);
    runs.remember("t1", "readMail", true, "mail");
    runs.remember("c1", "weather", false, "sun", {});
    runs.remember("t2", "readMail", true, "mail");
    expect(runs.get("c1")).toBeUndefined(); // the clean run went first
    expect(runs.get("t1")).toMatchObject({ untrusted: true, overflow: false, untrustedResults: ["mail"] });
    runs.remember("t3", "readWeb", true, "page");
    expect(runs.get("t1")).toMatchObject({ untrusted: true, overflow: false });
    // t2 was the least recently used tainted run: its content went, its mark stayed.
    expect(runs.get("t2")).toMatchObject({ untrusted: true, overflow: true, sources: ["readMail"] });
    // A run coming back keeps its mark, and later sources add to it.
    runs.remember("t2", "readWeb", true, "page");
    expect(runs.get("t2")).toMatchObject({ untrusted: true, overflow: true, sources: ["readMail", "readWeb"] });
  });

  it("past its marks it fails closed: every run it does not know counts as tainted", () => {
    const runs = new TrackedRuns(1, 2);
    for (const id of ["a", "b", "c", "d"]) runs.remember(id, "readMail", true, "mail");
    // d holds the content; b and c are marks; a's mark was given up, so nothing unknown is clean now.
    for (const id of ["a", "b", "c", "d", "never-seen"]) expect(runs.get(id)?.untrusted).toBe(true);
    expect(runs.get("never-seen")?.sources).toEqual([FORGOTTEN_SOURCE]);
  });
});
