// Types of amazon-schema-check.mjs.
export interface Schema {
  type?: string;
  format?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
}
export function isDateTime(value: unknown): boolean;
export function checkAgainstSchema(value: unknown, schema: Schema | null | undefined, path: string, problems?: string[]): string[];
