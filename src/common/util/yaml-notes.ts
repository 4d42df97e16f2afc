// Where the `yaml` library's warnings go: through the program's logger, never to Node's process
// warnings (bounded-yaml.ts composes with logLevel 'error', so the library itself writes nothing).
// A warning is a document read anyway with something ignored (an unknown tag or directive, an
// ambiguous anchor, an indentation it tolerates): each is a note naming the source, the line and
// column and what was done. Each program sets the sink once its logger exists; notes from before
// (the config files are read before logging starts) are held until then.

export type YamlNoteSink = (note: string) => void;

/** Notes held at most before a sink is set; past that, one count says how many were dropped. */
const HELD_MAX = 100;

let sink: YamlNoteSink | undefined;
const held: string[] = [];
let dropped = 0;

/** Sets where notes go (each program's logger) and hands it the notes held until now. */
export function setYamlNoteSink(next: YamlNoteSink | undefined): void {
  sink = next;
  if (next === undefined) return;
  for (const note of held.splice(0)) next(note);
  if (dropped > 0) next(`${dropped} more YAML notes from before logging started were dropped`);
  dropped = 0;
}

export function yamlNote(note: string): void {
  if (sink !== undefined) sink(note);
  else if (held.length < HELD_MAX) held.push(note);
  else dropped++;
}
