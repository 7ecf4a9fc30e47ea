import type { Context } from "hono";

/** A success answer: the envelope's defaults plus the endpoint's own fields (PascalCase). */
export function ok(c: Context, fields: Record<string, unknown> = {}) {
  return c.json({ Success: true, Message: "", ...fields }, 200);
}

/** A failure answer's body. Status and headers are the caller's. */
export function failure(message: string) {
  return { Success: false, Message: message };
}

/**
 * A success answer whose list is written as it is produced: `{Success, Message, <name>: [...],
 * ...after}`. Only the element being written is held, so the answer's size does not bound the
 * Worker's memory. The first element is produced before the answer starts, so a failure there
 * is still an ordinary error answer; a later failure cuts the body short (invalid JSON, never a
 * silently shorter list).
 */
export async function okStream(c: Context, name: string, items: AsyncIterator<unknown>, after: Record<string, unknown>) {
  const encoder = new TextEncoder();
  let next = await items.next();
  let first = true;
  const tail = Object.entries(after)
    .map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`)
    .join("");
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(`{"Success":true,"Message":"",${JSON.stringify(name)}:[`));
      },
      async pull(controller) {
        if (next.done) {
          controller.enqueue(encoder.encode(`]${tail}}`));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode((first ? "" : ",") + JSON.stringify(next.value)));
        first = false;
        next = await items.next();
      },
      async cancel() {
        await items.return?.();
      },
    },
    { highWaterMark: 1 },
  );
  return c.body(body, 200, { "Content-Type": "application/json; charset=UTF-8" });
}
