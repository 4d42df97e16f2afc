// `npm run schema`: writes schema/nodeagent-config.schema.json from the zod schema.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FLAGS } from '../cli/flags.js';
import { renderJsonSchema, SCHEMA_FILE } from './json-schema.js';

mkdirSync(dirname(SCHEMA_FILE), { recursive: true });
writeFileSync(SCHEMA_FILE, renderJsonSchema(FLAGS));
process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
