// Which receiver URLs the hub sends webhooks to (decisions 9, updated), and how a URL a receiver
// or a failure names is written into a delivery's LastError. Pure functions: the schemas refuse
// with receiverUrlProblem's words, the sender writes what safeUrl and safeErrorText leave.
//
// A receiver URL is https (in every environment), carries no user name or password, and its host
// is a name, a public IP address, or the machine itself (loopback, for local work). Refused: an IP
// literal in a private, link-local or unique-local range (10/8, 172.16/12, 192.168/16, 169.254/16,
// fc00::/7, fe80::/10) or any other range that is not public (0/8, 100.64/10 shared, multicast,
// reserved, documentation, IPv6 forms that carry an IPv4 address such as ::ffff:0:0/96 and
// 64:ff9b::/96; ranges as ipaddr.js names them), and an IPv4 host written other than as its four
// decimal numbers (`0x7f000001`, `2130706433`, `0177.0.0.1`, `127.1`, `%31%32%37.0.0.1`,
// `127.0.0.1.`): URL parsers read them all as addresses, so a check of the written text alone
// would let them through. A host name that resolves to a private address is not caught here: the
// Worker cannot resolve names, and Cloudflare's fetch does not reach private networks.
import * as ipaddr from "ipaddr.js";

/** Ranges a receiver may be in: public addresses, and the machine itself. */
const ALLOWED_RANGES = new Set(["unicast", "loopback"]);
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f]/;
const IPV4_DOTTED = /^\d{1,3}(\.\d{1,3}){3}$/;

/** The authority as written (between `//` and the path): the URL parser rewrites what it reads. */
function writtenAuthority(value: string): string {
  const afterScheme = value.slice(value.indexOf(":") + 1).replace(/^[/\\]*/, "");
  return afterScheme.split(/[/\\?#]/, 1)[0] ?? "";
}

function writtenHost(authority: string): string {
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1).toLowerCase();
  const colon = host.lastIndexOf(":");
  return (colon < 0 ? host : host.slice(0, colon)).toLowerCase();
}

/** Why a receiver URL is refused (the words after `'Url': `), or null when the hub may send to it. */
export function receiverUrlProblem(value: string): string | null {
  if (CONTROL_OR_SPACE.test(value)) return "must not contain spaces or control characters";
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return "must be an absolute https:// URL";
  }
  if (parsed.protocol !== "https:") return "must be an https:// URL";
  const authority = writtenAuthority(value);
  if (parsed.username !== "" || parsed.password !== "" || authority.includes("@")) return "must not carry a user name or password";
  const host = parsed.hostname;
  if (IPV4_DOTTED.test(host) && writtenHost(authority) !== host) {
    return `must not have a numeric host written other than as four decimal numbers (it reads as ${host})`;
  }
  const literal = host.startsWith("[") ? host.slice(1, -1) : IPV4_DOTTED.test(host) ? host : null;
  if (literal === null || !ipaddr.isValid(literal)) return null;
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the IPv4 address it carries.
  const address = ipaddr.process(literal);
  const range = address.range();
  if (ALLOWED_RANGES.has(range)) return null;
  return `must not be an IP address in a private, link-local or unique-local range, or another range that is not public (${address.toString()} is ${range})`;
}

/** A URL as LastError may show it: scheme, host, port and path, without credentials, query or fragment. */
export function safeUrl(value: string, base?: string): string | null {
  try {
    const url = new URL(value, base);
    return `${url.protocol}//${url.host}${url.pathname}`.slice(0, 200);
  } catch {
    return null;
  }
}

/** A failure's text as LastError keeps it: every URL in it without query, fragment or credentials, at most `max` characters. */
export function safeErrorText(text: string, max = 160): string {
  const scrubbed = text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (url) => safeUrl(url) ?? "(a URL)");
  return scrubbed.length > max ? `${scrubbed.slice(0, max - 1)}…` : scrubbed;
}
