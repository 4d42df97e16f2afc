// The reference's label key and value syntax (IsQualifiedName, IsValidLabelValue), used by taints
// here and by the node-label rules of the config validation.

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Problems with a qualified name (`[prefix/]name`); empty when it is valid. */
export function qualifiedNameErrors(key: string): string[] {
  const errs: string[] = [];
  const parts = key.split('/');
  let name: string;
  if (parts.length === 1) {
    name = key;
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix === '') errs.push('prefix part must be non-empty');
    else if (prefix.length > 253) errs.push('prefix part must be no more than 253 characters');
    else if (!DNS1123_SUBDOMAIN.test(prefix))
      errs.push(
        'prefix part a lowercase RFC 1123 subdomain must consist of lower case ' +
          "alphanumeric characters, '-' or '.', and must start and end with an " +
          'alphanumeric character',
      );
  } else {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and " +
        'must start and end with an alphanumeric character, with an optional DNS ' +
        "subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  else if (!NAME.test(name))
    errs.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must " +
        'start and end with an alphanumeric character',
    );
  return errs;
}

/** Problems with a label value (empty, or at most 63 name characters); empty when valid. */
export function labelValueErrors(value: string): string[] {
  if (value === '') return [];
  if (value.length > 63) return ['must be no more than 63 characters'];
  if (!NAME.test(value))
    return [
      "a valid label must be an empty string or consist of alphanumeric characters, '-'," +
        " '_' or '.', and must start and end with an alphanumeric character",
    ];
  return [];
}
