// The host's users and groups (/etc/passwd, /etc/group) for process:// containers, which run on
// the host as an image's processes run in it: a uid's primary group when runAsGroup is unset, and
// the groups that list the user's name (the Merge supplementalGroupsPolicy), as a container
// runtime reads them from the image.
import { readFileSync } from 'node:fs';

export interface HostUsers {
  /** The primary gid and name of a uid, when /etc/passwd has it. */
  user(uid: number): { name: string; gid: number } | undefined;
  /** The gids of the groups whose member list names `name`. */
  groupsOf(name: string): number[];
}

function rows(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.split(':'));
}

const idOf = (s: string | undefined): number | undefined =>
  s !== undefined && /^\d+$/.test(s) ? Number(s) : undefined;

/** Users and groups from the texts of a passwd and a group file. */
export function parseHostUsers(passwd: string, group: string): HostUsers {
  const users = new Map<number, { name: string; gid: number }>();
  for (const r of rows(passwd)) {
    const uid = idOf(r[2]);
    const gid = idOf(r[3]);
    if (r[0] !== undefined && uid !== undefined && gid !== undefined && !users.has(uid))
      users.set(uid, { name: r[0], gid });
  }
  const groups = rows(group).flatMap((r) => {
    const gid = idOf(r[2]);
    return gid === undefined ? [] : [{ gid, members: (r[3] ?? '').split(',') }];
  });
  return {
    user: (uid) => users.get(uid),
    groupsOf: (name) => groups.filter((g) => g.members.includes(name)).map((g) => g.gid),
  };
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

export function readHostUsers(etc = '/etc'): HostUsers {
  return parseHostUsers(readOrEmpty(`${etc}/passwd`), readOrEmpty(`${etc}/group`));
}
