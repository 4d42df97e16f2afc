// Types of the undici modules the agent imports by path (undici-core.ts): the package ships
// types for its index only; these are the same classes and functions the index exports.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const UndiciAgent: typeof Agent;
  export default UndiciAgent;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** undici's request API; `this` is the dispatcher, the options carry origin and path. */
  function request(
    this: Dispatcher,
    opts: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
  export default request;
}

declare module 'undici/lib/global.js' {
  import type { Dispatcher } from 'undici';
  const global: { getGlobalDispatcher(): Dispatcher };
  export default global;
}

declare module 'undici/lib/core/util.js' {
  const util: { parseURL(url: string | URL): URL };
  export default util;
}

declare module 'undici/lib/core/connect.js' {
  import type { buildConnector as build } from 'undici';
  const buildConnector: typeof build;
  export default buildConnector;
}
