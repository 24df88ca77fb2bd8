// Data access shared by the views, over the gateway connection.

// sessionRow fetches the gateway's row for one canonical key, or null when
// the session does not exist yet. sessions.list has no exact-key filter, so
// this searches for the key and picks the exact match.
export async function sessionRow(gw, canonical) {
  const res = await gw.call('sessions.list', {search: canonical, limit: 50, includeGlobal: true, includeUnknown: true});
  const rows = (res && res.sessions) || [];
  return rows.find((r) => gw.canonicalKey(r.key) === canonical) || null;
}

// childRows lists the sessions spawned directly by a canonical key.
export async function childRows(gw, canonical) {
  const res = await gw.call('sessions.list', {spawnedBy: canonical, limit: 200});
  return (res && res.sessions) || [];
}

// sameSession reports whether a key from an event names the canonical key.
export function sameSession(gw, key, canonical) {
  return !!key && gw.canonicalKey(key) === canonical;
}

// runsOf normalizes the HTTP runs listing (a bare array or {runs}).
export function runsOf(res) {
  if (Array.isArray(res)) return res;
  return (res && (res.runs || res.items)) || [];
}
