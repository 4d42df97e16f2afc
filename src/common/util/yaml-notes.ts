// Where the `yaml` library's warnings go: through the program's logger, never to Node's process
// warnings (bounded-yaml.ts composes with logLevel 'error', so the library itself writes nothing).
// A warning is a document read anyway with something ignored (an unknown tag or directive, an
// ambiguous anchor, an indentation it tolerates): each is a note naming the source, the line and
// column and what was done. Each program sets the sink once its logger exists; notes from before
// (the config files are read before logging starts) are held until then. A note is given once: a
// text read twice (a config file by the profile inference, then by the loader) says it once.

export type YamlNoteSink = (note: string) => void;

/** Notes held at most before a sink is set; past that, one count says how many were dropped. */
const HELD_MAX = 100;

/** Notes remembered so that each is given once; past this many, the memory starts again. */
const SEEN_MAX = 1000;

let sink: YamlNoteSink | undefined;
const held: string[] = [];
let dropped = 0;
const seen = new Set<string>();

/** Sets where notes go (each program's logger) and hands it the notes held until now. */
export function setYamlNoteSink(next: YamlNoteSink | undefined): void {
  sink = next;
  if (next === undefined) return;
  for (const note of held.splice(0)) next(note);
  if (dropped > 0) next(`${dropped} more YAML notes from before logging started were dropped`);
  dropped = 0;
}

export function yamlNote(note: string): void {
  if (seen.has(note)) return;
  if (seen.size >= SEEN_MAX) seen.clear();
  seen.add(note);
  if (sink !== undefined) sink(note);
  else if (held.length < HELD_MAX) held.push(note);
  else dropped++;
}
