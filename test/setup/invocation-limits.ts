// Fails a test in which an invocation went past one of Cloudflare's per-invocation limits (the
// meter throws there, as production would, but the code under test may have caught that error).
import { afterEach } from "vitest";
import { takeViolations } from "../helpers/invocation-meter";

afterEach(() => {
  const violations = takeViolations();
  if (violations.length > 0) {
    throw new Error(`over Cloudflare's per-invocation limits:\n${violations.map((v) => `  ${v.label} (#${v.seq}): ${v.what}`).join("\n")}`);
  }
});
