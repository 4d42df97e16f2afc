// Opening SQLite databases and preparing statements so that the garbage collector never frees a
// better-sqlite3 object.
//
// Why: better-sqlite3 12 wraps its Database, Statement, StatementIterator and Backup objects in
// node::ObjectWrap. On Node 24 that header registers one environment cleanup hook per object and
// removes it in the destructor through `Environment::GetCurrent(isolate)`, which is null when the
// collector runs the weak callback outside any V8 context: the process then aborts with
// `RemoveEnvironmentCleanupHook ... Assertion failed: (env) != nullptr` from
// `Statement::~Statement` (https://github.com/WiseLibs/better-sqlite3/issues/1515; 13.x moved to
// node-addon-api but needs Node 22). Node 20 and 22 are not affected. So every object is kept
// reachable until the process exits (the environment's own cleanup then frees it safely):
// statements are prepared once and held, `PRAGMA`s go through `exec` (which makes no object), and
// a closed database stays in the registry below with its statements (their SQLite handles are
// already released by `close()`; what is kept is a few hundred bytes per database).
import Database from 'better-sqlite3';

/** Databases (open or closed) and the statements prepared on them, kept until the process exits. */
const kept = new Map<Database.Database, Set<Database.Statement>>();

export function openDatabase(file: string, options?: Database.Options): Database.Database {
  const db = new Database(file, options);
  kept.set(db, new Set());
  return db;
}

/** Prepares a statement that stays reachable for the life of the process. */
export function prepareKept<P extends unknown[] = unknown[], R = unknown>(
  db: Database.Database,
  sql: string,
): Database.Statement<P, R> {
  const stmt = db.prepare<P, R>(sql);
  let set = kept.get(db);
  if (set === undefined) {
    set = new Set();
    kept.set(db, set);
  }
  set.add(stmt);
  return stmt;
}

/** How many databases the registry holds (for tests). */
export function keptDatabaseCount(): number {
  return kept.size;
}
