// The reference's answer for an error that is not an API status (a dial failure, a node with no
// usable address): 500, no reason, the error's text as the message (ErrorToAPIStatus).

import { StatusError, type StatusBody } from '../status.js';

export class UnknownStatusError extends StatusError {
  constructor(message: string) {
    super(500, '', message);
  }

  override toStatus(): StatusBody {
    const body = super.toStatus();
    delete body.reason;
    return body;
  }
}
