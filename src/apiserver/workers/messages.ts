// What passes between plat-apiserver's main thread and its worker threads (--worker-threads):
// a job with its id, the answer with the same id, and the set-up messages every thread is given
// when it starts (a replacement thread gets them again). Jobs are pure functions of their input,
// so one whose thread dies can be run again on the main thread.

import type { LocalProviderKind } from '../encryption/providers.js';

/** A JSON or YAML request body to decode and check against its kind's schema (decode.ts). */
export interface DecodeJob {
  readonly kind: 'decode';
  readonly body: string;
  readonly contentType: string;
  readonly objectKind: string;
  readonly apiVersion: string;
  readonly exactGvk: boolean;
}

/** A value to encrypt or decrypt with a key given in a set-up message. */
export interface CipherJob {
  readonly kind: 'encrypt' | 'decrypt';
  readonly key: number;
  readonly data: Uint8Array;
  readonly context: string;
}

/**
 * Stored values' plaintexts to serve as JSON text or protobuf message bytes: a list page's items
 * not yet served before.
 */
export interface ServedJob {
  readonly kind: 'served';
  readonly format: 'json' | 'protobuf';
  readonly objectKind: string;
  readonly apiVersion: string;
  readonly rows: readonly { readonly plain: Uint8Array; readonly rv: number }[];
}

/** A live change's protobuf watch frame, from its object as JSON text. */
export interface FrameJob {
  readonly kind: 'frame';
  readonly type: string;
  readonly object: string;
  readonly objectKind: string;
  readonly apiVersion: string;
}

export type Job = DecodeJob | CipherJob | ServedJob | FrameJob;

/** A local encryption key, by number: jobs name it so key material crosses once per thread. */
export interface KeySetup {
  readonly kind: 'key';
  readonly key: number;
  readonly provider: LocalProviderKind;
  readonly name: string;
  readonly material: Uint8Array;
}

export type Setup = KeySetup;

/** A decoded body: the object as JSON text (parsed again by the main thread) and its findings. */
export interface DecodedReply {
  readonly text: string;
  readonly unknownFields: string[];
  readonly duplicateFields: string[];
}

/** A DecodeError's parts (its InputLimitError's fields, if any), to make it again on the main thread. */
export interface DecodeFailure {
  readonly message: string;
  readonly yamlConversion?: string;
  readonly limit?: {
    readonly message: string;
    readonly limit: string;
    readonly max: number;
    readonly source: string;
    readonly offset: number;
    readonly field: string;
  };
}

export type JobResult =
  | { readonly ok: true; readonly decoded: DecodedReply }
  | { readonly ok: true; readonly bytes: Uint8Array }
  /**
   * Each row's served text or message, in order; null for a value that is not a stored object,
   * or that does not fit its protobuf message.
   */
  | { readonly ok: true; readonly served: (string | Uint8Array | null)[] }
  | { readonly ok: false; readonly decodeError: DecodeFailure }
  | { readonly ok: false; readonly error: string };

export interface JobMessage {
  readonly id: number;
  readonly job: Job;
}

export interface ReplyMessage {
  readonly id: number;
  readonly result: JobResult;
}
