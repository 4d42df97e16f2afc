// --authorization-mode as a chain of named modes. Each mode name maps to a factory; the modes
// that need the server's storage (RBAC, Node) are built before the chain, over the store, and
// handed in (ModeAuthorizers). Another part plugs a mode in by registering its name.

import type { Authorizer, RuleResolver, SubjectRules } from '../interfaces.js';

/** Modes the flag accepts, in the reference's spelling. */
export const AUTHORIZATION_MODES = [
  'AlwaysAllow',
  'AlwaysDeny',
  'Node',
  'RBAC',
  'Webhook',
] as const;
export const DEFAULT_AUTHORIZATION_MODES = ['Node', 'RBAC'] as const;

const ALL_RULES: SubjectRules = {
  resourceRules: [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [], nonResourceURLs: [] },
  ],
  nonResourceRules: [
    { verbs: ['*'], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: ['*'] },
  ],
  incomplete: false,
};
const NO_RULES: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: false };

export const alwaysAllow: Authorizer & RuleResolver = {
  authorize: () => Promise.resolve({ decision: 'allow' }),
  rulesFor: () => Promise.resolve(ALL_RULES),
};
export const alwaysDeny: Authorizer & RuleResolver = {
  authorize: () => Promise.resolve({ decision: 'deny' }),
  rulesFor: () => Promise.resolve(NO_RULES),
};

export function isRuleResolver(a: object): a is RuleResolver {
  return 'rulesFor' in a && typeof a.rulesFor === 'function';
}

/** The authorizers of the modes that need the server's storage, built before the chain. */
export interface ModeAuthorizers {
  readonly rbac: Authorizer;
  readonly node: Authorizer;
}

export interface ModeContext extends ModeAuthorizers {
  /** The --authorization-mode=Webhook authorizer (built from the webhook flags). */
  readonly webhook: () => Authorizer;
}

export type ModeFactory = (ctx: ModeContext) => Authorizer;

const BUILT_IN: ReadonlyMap<string, ModeFactory> = new Map<string, ModeFactory>([
  ['AlwaysAllow', () => alwaysAllow],
  ['AlwaysDeny', () => alwaysDeny],
  ['RBAC', (ctx) => ctx.rbac],
  ['Node', (ctx) => ctx.node],
  ['Webhook', (ctx) => ctx.webhook()],
]);

/** The authorizers of a mode list, in order. */
export function authorizersForModes(
  modes: readonly string[],
  ctx: ModeContext,
  extra: ReadonlyMap<string, ModeFactory> = new Map(),
): Authorizer[] {
  return modes.map((m) => {
    const f = extra.get(m) ?? BUILT_IN.get(m);
    if (f === undefined) throw new Error(`unknown authorization mode ${m}`);
    return f(ctx);
  });
}
