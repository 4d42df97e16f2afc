// A request's abort signal, made only when a handler asks for it. Most requests end without
// anything listening (a create, a get); making a controller and a signal for each, and aborting
// it when its response closed, was about 3% of an event create's time. Watches and the streaming
// proxy ask for the signal and get one that aborts when the response closes or the server stops.

/** A request's signal, made on first read of `signal`. */
export class RequestAbort {
  private controller: AbortController | undefined;
  private reason: unknown;
  private done = false;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.done) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Aborts the signal now if it was made, or as it is made; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
