import { createRequire } from 'node:module';
import ajvDraft04, { type ValidateFunction } from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';

// CommonJS packages: under NodeNext their classes are the `default` of the module object.
const Ajv = ajvDraft04.default;
const addFormats = ajvFormats.default;

/**
 * A validator for SARIF 2.1.0 logs against the OASIS schema, read from the npm package that ships it
 * (@microsoft/jest-sarif, a devDependency: third-party files are not committed here). That copy is
 * `sarif-2.1.0-rtm.5.json`, the 2.1.0 schema as released, written in JSON Schema draft-04; the OASIS
 * site's `sarif-schema-2.1.0.json` is the same schema restated in draft-07. ajv-draft-04 is ajv's own
 * draft-04 build, with ajv-formats for `uri`, `date-time` and the other formats it uses.
 */
export function sarifValidator(): ValidateFunction {
  const require = createRequire(import.meta.url);
  const schema = require('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json') as object;
  // unicodeRegExp off: the schema's `language` pattern has a stray `]` that only the `u` flag rejects.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(schema);
}
