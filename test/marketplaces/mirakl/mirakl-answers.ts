// What the parts of the fake Mirakl share: the description's extract and the way Mirakl answers
// (JSON; its error body, whose shape the description does not give: UNCONFIRMED).
import type { Schema } from "../fake-kit/schema-check";
import extracted from "./mirakl-description.json";

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  pathParams: string[];
  query: { name: string; required: boolean; schema: Schema }[];
  paging: "offset" | "seek" | null;
  requestBody: { contentType: string; schema: Schema; fileFormat: string | null } | null;
}

export const description = extracted as unknown as {
  operations: Operation[];
  security: Record<string, { in: string; name: string }>;
  examples: { OR11: { orders: unknown[] } };
};

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

export function miraklError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return json(status, { status, message }, headers);
}
