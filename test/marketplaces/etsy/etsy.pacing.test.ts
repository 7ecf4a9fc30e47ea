// Etsy's pacing as pure functions of explicit clocks: spacing at the stated per-second limit, the
// wait for the next second when none are left, the day's reserve, and headers that cannot be read.
import { describe, expect, it } from "vitest";
import { answerReceived, callSent, initialPace, waitBeforeCall } from "../../../src/marketplaces/etsy/etsy.pacing";

const headers = (h: Record<string, string>) => new Headers(h);

describe("Etsy pacing", () => {
  it("lets the first call go at once and spaces the next at the per-second limit Etsy states", () => {
    let pace = initialPace();
    expect(waitBeforeCall(pace, 1_000, 0)).toEqual({ waitMs: 0 });
    pace = callSent(pace, 1_000);
    // 10 a second assumed until Etsy says: 100 ms apart.
    expect(waitBeforeCall(pace, 1_040, 0)).toEqual({ waitMs: 60 });
    pace = answerReceived(pace, 1_050, headers({ "x-limit-per-second": "4", "x-remaining-this-second": "3", "x-remaining-today": "9000" }));
    expect(waitBeforeCall(pace, 1_050, 0)).toEqual({ waitMs: 200 });
    expect(waitBeforeCall(pace, 1_300, 0)).toEqual({ waitMs: 0 });
  });

  it("waits for the next second after an answer that says none are left this second", () => {
    let pace = callSent(initialPace(), 5_000);
    pace = answerReceived(pace, 5_020, headers({ "x-limit-per-second": "10", "x-remaining-this-second": "0", "x-remaining-today": "50" }));
    expect(waitBeforeCall(pace, 5_100, 0)).toEqual({ waitMs: 920 });
    expect(waitBeforeCall(pace, 6_020, 0)).toEqual({ waitMs: 0 });
  });

  it("keeps the day's last calls for deliveries: an import is refused at or below its reserve, a delivery only at 0", () => {
    let pace = answerReceived(callSent(initialPace(), 0), 10, headers({ "x-remaining-this-second": "9", "x-remaining-today": "101" }));
    expect(waitBeforeCall(pace, 5_000, 100)).toEqual({ waitMs: 0 });
    pace = callSent(pace, 5_000);
    expect(waitBeforeCall(pace, 10_000, 100)).toEqual({ exhausted: true });
    expect(waitBeforeCall(pace, 10_000, 0)).toEqual({ waitMs: 0 });
    pace = answerReceived(callSent(pace, 10_000), 10_010, headers({ "x-remaining-today": "0" }));
    expect(waitBeforeCall(pace, 20_000, 0)).toEqual({ exhausted: true });
  });

  it("keeps what it knew when an answer's headers are missing or unreadable", () => {
    const before = answerReceived(
      callSent(initialPace(), 0),
      10,
      headers({ "x-limit-per-second": "5", "x-remaining-this-second": "4", "x-remaining-today": "700" }),
    );
    const after = answerReceived(before, 500, headers({ "x-limit-per-second": "0", "x-remaining-this-second": "-1", "x-remaining-today": "lots" }));
    expect(after).toEqual({ ...before });
    expect(after).toMatchObject({ limitPerSecond: 5, remainingThisSecond: 4, remainingToday: 700, answeredAt: 10 });
  });
});
