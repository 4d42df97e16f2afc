// The protobuf wire's media types and frame limit, apart from the codec (protobufjs): a client
// that speaks JSON (the agent's bootstrap) names them without loading the codec.
import { WIRE_NAMES } from '../names.js';

export const PROTOBUF_WATCH_MEDIA_TYPE = `${WIRE_NAMES.protobufMediaType};stream=watch`;
/** The largest watch frame read (the reference's default limit for a decoded frame is 16 MiB). */
export const MAX_WATCH_FRAME_BYTES = 16 * 1024 * 1024;
