// --authorization-mode as a chain of named modes. Each mode name maps to a factory; a mode that
// needs the server's storage (RBAC, Node) is a LateAuthorizer the server binds once its storage
// exists. Another part plugs a mode in by registering its name (the Node authorizer does so).

import type { Logger } from '../../common/log/types.js';
import type {
  AuthorizationDecision,
  Authorizer,
  RequestAttributes,
  RuleResolver,
  SubjectRules,
} from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';

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

/**
 * An authorizer whose implementation is set after construction (when the server's storage
 * exists). Until then it fails, so a request can never be allowed by a mode that is not ready.
 */
export class LateAuthorizer implements Authorizer, RuleResolver {
  readonly mode: string;
  private target: Authorizer | undefined;

  constructor(mode: string) {
    this.mode = mode;
  }

  bind(target: Authorizer): void {
    this.target = target;
  }

  get bound(): boolean {
    return this.target !== undefined;
  }

  authorize(attrs: RequestAttributes): Promise<AuthorizationDecision> {
    if (this.target === undefined)
      return Promise.reject(new Error(`authorization mode ${this.mode} is not ready`));
    return this.target.authorize(attrs);
  }

  rulesFor(user: UserInfo, namespace: string): Promise<SubjectRules> {
    const t = this.target;
    if (t !== undefined && isRuleResolver(t)) return t.rulesFor(user, namespace);
    return Promise.resolve({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: `${this.mode.toLowerCase()} authorizer does not support user rule resolution`,
    });
  }
}

/** The modes that need the server: bound by the server (RBAC) or by the part that provides them (Node). */
export class LateModes {
  readonly rbac = new LateAuthorizer('RBAC');
  readonly node = new LateAuthorizer('Node');
  /** The server's whole chain, for parts built before the server (the certificate admission plugins). */
  readonly chain = new LateAuthorizer('server');

  /**
   * Binds Node to a no-opinion authorizer when no Node authorizer was plugged in, saying so once:
   * node identities then get only what RBAC grants them.
   */
  bindDefaults(logger: Logger, requested: readonly string[]): void {
    if (this.node.bound) return;
    if (requested.includes('Node')) {
      logger.warn(
        { mode: 'Node' },
        'authorization mode Node: no Node authorizer is built into this server yet; it has no opinion on any request, so nodes get only what RBAC grants them',
      );
    }
    this.node.bind({ authorize: () => Promise.resolve({ decision: 'no-opinion' }) });
  }
}

export interface ModeContext {
  readonly late: LateModes;
  /** The --authorization-mode=Webhook authorizer (built from the webhook flags). */
  readonly webhook: () => Authorizer;
}

export type ModeFactory = (ctx: ModeContext) => Authorizer;

const BUILT_IN: ReadonlyMap<string, ModeFactory> = new Map<string, ModeFactory>([
  ['AlwaysAllow', () => alwaysAllow],
  ['AlwaysDeny', () => alwaysDeny],
  ['RBAC', (ctx) => ctx.late.rbac],
  ['Node', (ctx) => ctx.late.node],
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
