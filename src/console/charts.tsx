// The overviews' charts, drawn as SVG on the server: no script, no library, nothing from another
// origin. Readable without colour: every series has its own pattern (stripes, dots, hatching) as
// well as its hue, the legend shows the patterns, bars carry their numbers as text, and each
// chart sits beside a table of the same numbers (the chart is an image to assistive technology;
// the table is what a screen reader reads). Every bar carries data-value, so a test can hold the
// picture to the table and the API.
import type { FC } from "hono/jsx";

/** Hue and pattern of the series at each index (cycled). The first is solid. */
const STYLES = [
  { colour: "#0b57d0", kind: "solid" },
  { colour: "#b3261e", kind: "stripes" },
  { colour: "#146c2e", kind: "dots" },
  { colour: "#6b3fa0", kind: "hatch" },
  { colour: "#8a5a00", kind: "rows" },
  { colour: "#3d3d3d", kind: "columns" },
] as const;

const styleOf = (i: number) => STYLES[i % STYLES.length]!;
const fillOf = (chart: string, i: number) => (styleOf(i).kind === "solid" ? styleOf(i).colour : `url(#${chart}-p${i % STYLES.length})`);

/** The patterns of a chart's series, ids prefixed by the chart's own id. */
const Patterns: FC<{ chart: string }> = ({ chart }) => (
  <defs>
    {STYLES.map((s, i) => (
      <pattern id={`${chart}-p${i}`} width="6" height="6" patternUnits="userSpaceOnUse">
        <rect width="6" height="6" fill="#fff" />
        {s.kind === "solid" ? <rect width="6" height="6" fill={s.colour} /> : null}
        {s.kind === "stripes" ? <path d="M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2" stroke={s.colour} stroke-width="2" /> : null}
        {s.kind === "dots" ? <circle cx="3" cy="3" r="1.6" fill={s.colour} /> : null}
        {s.kind === "hatch" ? <path d="M0,0 l6,6 M6,0 l-6,6" stroke={s.colour} stroke-width="1.4" /> : null}
        {s.kind === "rows" ? <path d="M0,1.5 h6 M0,4.5 h6" stroke={s.colour} stroke-width="1.4" /> : null}
        {s.kind === "columns" ? <path d="M1.5,0 v6 M4.5,0 v6" stroke={s.colour} stroke-width="1.4" /> : null}
      </pattern>
    ))}
  </defs>
);

/** The smallest 1, 2 or 5 times a power of ten at or above n (the axis' top). */
export function niceMax(n: number): number {
  if (n <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * power).find((m) => m >= n)!;
}

/** The legend: each series' name beside a swatch of its pattern (the chart's own patterns). */
export const Legend: FC<{ chart: string; names: string[] }> = ({ chart, names }) => (
  <ul class="legend" aria-label="Legend">
    {names.map((name, i) => (
      <li>
        <svg width="18" height="18" aria-hidden="true" focusable="false">
          <rect x="1" y="1" width="16" height="16" fill={fillOf(chart, i)} stroke="#1a1a1a" />
        </svg>{" "}
        {name}
      </li>
    ))}
  </ul>
);

/**
 * Bars stacked by series, one bar a column (a day, a cycle). The total is written above each
 * bar, column labels below (every `labelEvery`th).
 */
export const StackedBars: FC<{
  id: string;
  title: string;
  columns: string[];
  series: { name: string; values: number[] }[];
  labelEvery?: number;
  labelOf?: (column: string, index: number) => string;
  marks?: (string | null)[];
}> = ({ id, title, columns, series, labelEvery = 1, labelOf = (c) => c, marks }) => {
  const left = 44;
  const top = 18;
  const plot = 180;
  const step = Math.max(14, Math.min(40, Math.floor(680 / Math.max(columns.length, 1))));
  const width = left + step * columns.length + 8;
  const height = top + plot + 46;
  const totals = columns.map((_, i) => series.reduce((n, s) => n + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const scale = plot / max;
  const bar = Math.max(6, step - 4);
  return (
    <svg id={id} class="chart" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-labelledby={`${id}-title`} data-max={max}>
      <title id={`${id}-title`}>{`${title} (the numbers are in the table beside)`}</title>
      <Patterns chart={id} />
      {[0, max / 2, max].map((v) => (
        <g>
          <line x1={left - 4} x2={width - 4} y1={top + plot - v * scale} y2={top + plot - v * scale} stroke="#c8c8c8" />
          <text x={left - 6} y={top + plot - v * scale + 4} text-anchor="end" font-size="11" fill="#1a1a1a">
            {String(v)}
          </text>
        </g>
      ))}
      {columns.map((column, i) => {
        const x = left + i * step + (step - bar) / 2;
        let y = top + plot;
        return (
          <g data-column={column} data-total={totals[i]}>
            {series.map((s, k) => {
              const value = s.values[i] ?? 0;
              const h = value * scale;
              y -= h;
              return value > 0 ? (
                <rect
                  class="bar"
                  x={x}
                  y={y}
                  width={bar}
                  height={h}
                  fill={fillOf(id, k)}
                  stroke="#1a1a1a"
                  stroke-width="0.5"
                  data-series={s.name}
                  data-column={column}
                  data-value={value}
                >
                  <title>{`${column}, ${s.name}: ${value}`}</title>
                </rect>
              ) : null;
            })}
            {totals[i]! > 0 ? (
              <text x={x + bar / 2} y={top + plot - totals[i]! * scale - 3} text-anchor="middle" font-size="9" fill="#1a1a1a">
                {String(totals[i])}
              </text>
            ) : null}
            {marks?.[i] ? (
              <text x={x + bar / 2} y={top + plot + 28} text-anchor="middle" font-size="11" font-weight="700" fill="#b3261e">
                {marks[i]}
              </text>
            ) : null}
            {i % labelEvery === 0 || i === columns.length - 1 ? (
              <text class="column-label" x={x + bar / 2} y={top + plot + 14} text-anchor="middle" font-size="10" fill="#1a1a1a">
                {labelOf(column, i)}
              </text>
            ) : null}
          </g>
        );
      })}
      <line x1={left} x2={width - 4} y1={top + plot} y2={top + plot} stroke="#1a1a1a" />
    </svg>
  );
};

/** Horizontal bars, one a row, each with its label before it and its number after it. */
export const HBars: FC<{ id: string; title: string; rows: { label: string; value: number }[]; max?: number }> = ({ id, title, rows, max }) => {
  const label = 170;
  const plot = 360;
  const row = 26;
  const width = label + plot + 70;
  const height = row * Math.max(rows.length, 1) + 8;
  const top = niceMax(max ?? Math.max(0, ...rows.map((r) => r.value)));
  const scale = plot / top;
  return (
    <svg id={id} class="chart" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-labelledby={`${id}-title`} data-max={top}>
      <title id={`${id}-title`}>{`${title} (the numbers are in the table beside)`}</title>
      <Patterns chart={id} />
      {rows.map((r, i) => (
        <g>
          <text x={label - 8} y={i * row + 18} text-anchor="end" font-size="12" fill="#1a1a1a">
            {r.label.length > 24 ? `${r.label.slice(0, 23)}…` : r.label}
          </text>
          <rect
            class="bar"
            x={label}
            y={i * row + 5}
            width={r.value * scale}
            height={row - 10}
            fill={fillOf(id, i)}
            stroke="#1a1a1a"
            stroke-width="0.5"
            data-series={r.label}
            data-value={r.value}
          >
            <title>{`${r.label}: ${r.value}`}</title>
          </rect>
          <text x={label + r.value * scale + 6} y={i * row + 18} font-size="12" fill="#1a1a1a">
            {String(r.value)}
          </text>
        </g>
      ))}
    </svg>
  );
};
