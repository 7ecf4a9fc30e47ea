// Lets Node import the Worker's modules outside workerd (for scripts that only read them, such as
// the typed client's generator): `cloudflare:*` imports resolve to empty stand-ins. Never used by
// the Worker or its tests, which run in workerd.
import { register } from "node:module";

const hooks = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith("cloudflare:")) {
    return { url: "data:text/javascript,export class DurableObject {} export class WorkerEntrypoint {} export const env = {};", shortCircuit: true };
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
