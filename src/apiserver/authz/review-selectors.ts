// The selectors of a (Self)SubjectAccessReview's resourceAttributes, as the reference's
// authorization/v1 with AuthorizeWithSelectors (beta and on in 1.32): `fieldSelector` and
// `labelSelector`, each a `rawSelector` or parsed `requirements` ({key, operator, values}).
// Validation is the reference's (pkg/apis/authorization/validation with unknown operators allowed,
// so newer clients are not refused); the attributes authorizers see are the reference's
// ResourceAttributesFrom: a raw selector is parsed (nothing when it does not parse), requirements
// are converted one by one (field: In/NotIn with one value become =/!=; label: In, NotIn, Exists,
// DoesNotExist), and a requirement that cannot be converted is dropped. Selectors only narrow a
// request, so dropping one asks about the broader request.

import {
  invalid as invalidField,
  forbidden as forbiddenField,
  required,
  type FieldError,
} from '../field-errors.js';
import type { FieldSelectorRequirement, LabelSelectorRequirement } from '../interfaces.js';
import {
  parseFieldSelector,
  parseLabelSelector,
  type LabelRequirement,
} from '../selectors/index.js';
import { isQualifiedName, isValidLabelValue } from '../../common/util/names.js';
import { badRequest } from '../status.js';
import { isOneOf } from '../../common/util/json-shape.js';

type Obj = Record<string, unknown>;

interface SelectorInput {
  readonly raw: string;
  readonly requirements: readonly { key: string; operator: string; values: string[] }[];
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/**
 * The selector at `ra[name]`, undefined when absent; 400 (as the reference's decoder) when not an
 * object.
 */
function selectorAt(
  ra: Obj,
  name: 'fieldSelector' | 'labelSelector',
  path: string,
): SelectorInput | undefined {
  const v = ra[name];
  if (v === undefined || v === null) return undefined;
  const type = name === 'fieldSelector' ? 'FieldSelectorAttributes' : 'LabelSelectorAttributes';
  if (!isObj(v))
    throw badRequest(
      `json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go struct ` +
        `field ResourceAttributes.${path}.${name} of type v1.${type}`,
    );
  const reqs = Array.isArray(v['requirements']) ? v['requirements'] : [];
  return {
    raw: typeof v['rawSelector'] === 'string' ? v['rawSelector'] : '',
    requirements: reqs.map((r) =>
      isObj(r)
        ? {
            key: typeof r['key'] === 'string' ? r['key'] : '',
            operator: typeof r['operator'] === 'string' ? r['operator'] : '',
            values: strings(r['values']),
          }
        : { key: '', operator: '', values: [] },
    ),
  };
}

function validateCommon(sel: SelectorInput, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (sel.raw !== '' && sel.requirements.length > 0)
    errs.push(
      invalidField(
        `${path}.rawSelector`,
        sel.raw,
        'may not specified at the same time as requirements',
      ),
    );
  if (sel.raw === '' && sel.requirements.length === 0)
    errs.push(
      required(
        `${path}.requirements`,
        `when ${path} is specified, requirements or rawSelector is required`,
      ),
    );
  return errs;
}

function validateOperator(r: SelectorInput['requirements'][number], path: string): FieldError[] {
  if ((r.operator === 'In' || r.operator === 'NotIn') && r.values.length === 0)
    return [required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'")];
  if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && r.values.length > 0)
    return [
      forbiddenField(
        `${path}.values`,
        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ),
    ];
  return []; // unknown operators are allowed (AllowUnknownOperatorInRequirement)
}

/**
 * The reference's validation of spec.resourceAttributes' selectors (field errors, in its order).
 */
export function validateReviewSelectors(ra: Obj, path = 'spec.resourceAttributes'): FieldError[] {
  const errs: FieldError[] = [];
  const field = selectorAt(ra, 'fieldSelector', path);
  if (field !== undefined) {
    const p = `${path}.fieldSelector`;
    errs.push(...validateCommon(field, p));
    field.requirements.forEach((r, i) => {
      const rp = `${p}.requirements[${i}]`;
      if (r.key === '') errs.push(required(`${rp}.key`, 'must be specified'));
      errs.push(...validateOperator(r, rp));
    });
  }
  const label = selectorAt(ra, 'labelSelector', path);
  if (label !== undefined) {
    const p = `${path}.labelSelector`;
    errs.push(...validateCommon(label, p));
    label.requirements.forEach((r, i) => {
      const rp = `${p}.requirements[${i}]`;
      errs.push(...validateOperator(r, rp));
      for (const msg of isQualifiedName(r.key)) errs.push(invalidField(`${rp}.key`, r.key, msg));
      r.values.forEach((v, j) => {
        for (const msg of isValidLabelValue(v))
          errs.push(invalidField(`${rp}.values[${j}]`, v, msg));
      });
    });
  }
  return errs;
}

function fieldRequirements(sel: SelectorInput): FieldSelectorRequirement[] {
  if (sel.requirements.length === 0) {
    try {
      return [...parseFieldSelector(sel.raw).requirements];
    } catch {
      return [];
    }
  }
  return sel.requirements.flatMap((r): FieldSelectorRequirement[] => {
    const value = r.values[0];
    if (r.values.length !== 1 || value === undefined) return [];
    if (r.operator === 'In') return [{ field: r.key, op: '=', value }];
    if (r.operator === 'NotIn') return [{ field: r.key, op: '!=', value }];
    return [];
  });
}

const API_LABEL_OPERATORS: readonly LabelSelectorRequirement['operator'][] = [
  'In',
  'NotIn',
  'Exists',
  'DoesNotExist',
];
const LABEL_OPERATORS: Readonly<Record<string, LabelSelectorRequirement['operator']>> = {
  '=': 'In',
  '==': 'In',
  in: 'In',
  '!=': 'NotIn',
  notin: 'NotIn',
  exists: 'Exists',
  '!': 'DoesNotExist',
};

/**
 * A parsed label requirement in the API's form; undefined for `>`/`<` (which the API cannot say).
 */
export function labelRequirementToApi(r: LabelRequirement): LabelSelectorRequirement | undefined {
  const operator = LABEL_OPERATORS[r.operator];
  return operator === undefined ? undefined : { key: r.key, operator, values: [...r.values] };
}

function labelRequirements(sel: SelectorInput): LabelSelectorRequirement[] {
  if (sel.requirements.length === 0) {
    try {
      return parseLabelSelector(sel.raw).requirements.flatMap(
        (r) => labelRequirementToApi(r) ?? [],
      );
    } catch {
      return [];
    }
  }
  return sel.requirements.flatMap((r) =>
    isOneOf(API_LABEL_OPERATORS, r.operator)
      ? [{ key: r.key, operator: r.operator, values: [...r.values] }]
      : [],
  );
}

/** The selector attributes of a validated resourceAttributes (absent when none remain). */
export function reviewSelectors(ra: Obj): {
  fieldSelector?: FieldSelectorRequirement[];
  labelSelector?: LabelSelectorRequirement[];
} {
  const field = selectorAt(ra, 'fieldSelector', 'spec.resourceAttributes');
  const label = selectorAt(ra, 'labelSelector', 'spec.resourceAttributes');
  const f = field === undefined ? [] : fieldRequirements(field);
  const l = label === undefined ? [] : labelRequirements(label);
  return {
    ...(f.length > 0 ? { fieldSelector: f } : {}),
    ...(l.length > 0 ? { labelSelector: l } : {}),
  };
}
