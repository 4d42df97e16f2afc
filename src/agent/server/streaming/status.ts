// What the error stream carries when an exec ends, as the reference's remotecommand server
// writes it: v4 a metav1.Status as JSON (exit code in details.causes, reason NonZeroExitCode);
// earlier protocols the plain message, and nothing on success.

export function v4Status(exitCode: number, command: readonly string[]): string {
  if (exitCode === 0) return JSON.stringify({ metadata: {}, status: 'Success' });
  return JSON.stringify({
    metadata: {},
    status: 'Failure',
    message:
      `command terminated with non-zero exit code: command '${command.join(' ')}' exited ` +
      `with ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  });
}

export function preV4Status(exitCode: number, command: readonly string[]): string {
  return exitCode === 0
    ? ''
    : `command terminated with non-zero exit code: command '${command.join(' ')}' exited ` +
        `with ${exitCode}`;
}
