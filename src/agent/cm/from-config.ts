// The resource managers from the merged configuration: the one call the agent makes.
import { mkdirSync } from 'node:fs';
import type { Logger } from '../../common/log/types.js';
import { gateLookup } from '../config/validate.js';
import type { NodeAgentConfiguration } from '../config/schema.js';
import { buildResourceManagers } from './build.js';
import type { ResourceManagers } from './resource-managers.js';

export function managersFromConfig(
  config: NodeAgentConfiguration,
  rootDir: string,
  logger: Logger,
): Promise<ResourceManagers> {
  // The checkpoints live in the root directory, which the reference creates at start too.
  mkdirSync(rootDir, { recursive: true, mode: 0o750 });
  if (config.reservedSystemCPUs !== '') {
    logger.info(
      { reservedCpus: config.reservedSystemCPUs },
      'Option --reserved-cpus is specified, it will overwrite the cpu setting in ' +
        '--plat-reserved and --system-reserved',
    );
  }
  return buildResourceManagers({
    config,
    gateEnabled: gateLookup(config.featureGates),
    rootDir,
    runtimeType: config.containerRuntimeEndpoint.startsWith('process://') ? 'process' : 'docker',
    logger,
  });
}
