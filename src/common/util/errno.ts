// The code of a Node system error (ENOENT, EACCES...), read without a cast: undefined when `err`
// is not an error or carries no string code.
export function errnoCode(err: unknown): string | undefined {
  if (!(err instanceof Error) || !('code' in err)) return undefined;
  return typeof err.code === 'string' ? err.code : undefined;
}
