// The error every selector parser throws: its message is the user-facing text of the 400
// BadRequest Status the server returns for a bad fieldSelector, labelSelector or shardSelector.

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}
