// Go-style durations ("300ms", "1.5h", "2h45m", "5m0s") as used by the reference's config types.

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration into milliseconds; returns undefined when the text is not a duration. */
export function parseGoDuration(text: string): number | undefined {
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(text);
  if (text === '0') return 0;
  if (m === null) return undefined;
  const sign = m[1] === '-' ? -1 : 1;
  let total = 0;
  for (const part of text.slice(m[1]?.length ?? 0).matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (UNIT_MS[part[2] ?? ''] ?? 0);
  }
  return sign * total;
}

/** Formats milliseconds the way Go prints durations ("5m0s", "30s", "1h0m0s", "500ms"). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = rest / 1000;
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}
