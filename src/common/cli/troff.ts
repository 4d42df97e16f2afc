// troff for both programs' man pages (man/*.1): escaping, bold and italic.

/**
 * Escapes text for troff: backslashes, hyphens (as minus signs), and control characters at line
 * start.
 */
export function troffEscape(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

export const bold = (s: string): string => `\\fB${troffEscape(s)}\\fR`;
export const italic = (s: string): string => `\\fI${troffEscape(s)}\\fR`;
