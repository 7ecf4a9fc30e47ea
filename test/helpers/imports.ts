// What a source file imports, read from its text: the layer tests (test/http/transport.layers.test.ts,
// test/marketplaces/leaf.test.ts) hold folders to the direction their imports may point.

/** Every module specifier a file imports or re-exports, static or dynamic. */
export function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*["']([^"']+)["']/g)) found.push(m[1]!);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)) found.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.push(m[1]!);
  return found;
}
