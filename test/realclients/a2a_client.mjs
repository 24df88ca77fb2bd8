// A2A 1.0 client run by a2a_test.go: the official JavaScript SDK
// (@a2a-js/sdk) drives a real switchboard gateway over JSON-RPC and prints
// one JSON object of what it saw. Env: A2A_BASE (gateway URL), A2A_TOKEN.
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';

const base = process.env.A2A_BASE;
const token = process.env.A2A_TOKEN;
const out = {};

function authFetch(tok) {
  return (input, init = {}) => {
    const headers = new Headers(init.headers || {});
    if (tok) headers.set('Authorization', `Bearer ${tok}`);
    return fetch(input, { ...init, headers });
  };
}

function factory(tok) {
  return new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch(tok) })],
  }));
}

function msg(id, text, contextId) {
  return {
    messageId: id, contextId: contextId || '', taskId: '', role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined, extensions: [], referenceTaskIds: [],
  };
}

function text(parts) {
  return (parts || []).map((p) => (p.content && p.content.$case === 'text' ? p.content.value : '')).join('');
}

function req(message, configuration) {
  return { tenant: '', message, configuration, metadata: undefined };
}

function state(s) { return TaskState[s] ?? String(s); }

async function main() {
  const client = await factory(token).createFromUrl(base);
  const card = await client.getAgentCard();
  out.cardName = card.name;
  out.cardInterfaces = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`);

  // SendMessage: waits for the task to end.
  const sent = await client.sendMessage(req(msg(`js-${Date.now()}`, 'hello from js', 'js-ctx')));
  out.send = { id: sent.id, contextId: sent.contextId, state: state(sent.status?.state), artifact: text(sent.artifacts?.[0]?.parts) };

  // GetTask.
  const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
  out.get = { id: got.id, state: state(got.status?.state), artifact: text(got.artifacts?.[0]?.parts) };

  // SendStreamingMessage.
  const kinds = [];
  let streamArtifact = '';
  let lastState = '';
  for await (const ev of client.sendMessageStream(req(msg(`js-s-${Date.now()}`, 'stream please', 'js-ctx')))) {
    const p = ev.payload;
    if (!p) continue;
    kinds.push(p.$case);
    if (p.$case === 'artifactUpdate') streamArtifact += text(p.value.artifact?.parts);
    if (p.$case === 'statusUpdate') lastState = state(p.value.status?.state);
    if (p.$case === 'task') lastState = state(p.value.status?.state);
  }
  out.stream = { kinds, artifact: streamArtifact, lastState };

  // ListTasks: the context's two tasks, one per page, newest first.
  const listed = [];
  let pageToken = '';
  let pages = 0;
  let totalSize = -1;
  do {
    const page = await client.listTasks({ tenant: '', contextId: 'js-ctx', status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 1, pageToken, historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: true });
    pages++;
    totalSize = page.totalSize;
    for (const t of page.tasks) listed.push(text(t.artifacts?.[0]?.parts));
    pageToken = page.nextPageToken;
  } while (pageToken && pages < 10);
  const completed = await client.listTasks({ tenant: '', contextId: 'js-ctx', status: TaskState.TASK_STATE_COMPLETED,
    pageSize: undefined, pageToken: '', historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: false });
  out.list = { listed, pages, totalSize, completed: completed.tasks.length };

  // SendStreamingMessage on a reply the model streams in pieces: several
  // artifact updates, applied by their append flag, make the reply.
  let chunkArtifact = '';
  let chunkUpdates = 0;
  let chunkAppends = 0;
  let chunkLast = false;
  let chunkState = '';
  for await (const ev of client.sendMessageStream(req(msg(`js-c-${Date.now()}`, 'chunky please', 'js-chunk')))) {
    const p = ev.payload;
    if (!p) continue;
    if (p.$case === 'artifactUpdate') {
      chunkUpdates++;
      if (p.value.append) {
        chunkAppends++;
        chunkArtifact += text(p.value.artifact?.parts);
      } else {
        chunkArtifact = text(p.value.artifact?.parts);
      }
      chunkLast = !!p.value.lastChunk;
    }
    if (p.$case === 'statusUpdate') chunkState = state(p.value.status?.state);
  }
  out.chunked = { updates: chunkUpdates, appends: chunkAppends, artifact: chunkArtifact, lastChunk: chunkLast, lastState: chunkState };

  // SubscribeToTask on a slow task, cancelled from another call after the
  // first event: the stream ends with CANCELED.
  const sub = await client.sendMessage(req(msg(`js-sub-${Date.now()}`, 'slow subscribe', 'js-sub'),
    { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true }));
  const subKinds = [];
  let subLast = '';
  for await (const ev of client.resubscribeTask({ tenant: '', id: sub.id })) {
    const p = ev.payload;
    if (!p) continue;
    subKinds.push(p.$case);
    if (subKinds.length === 1) await client.cancelTask({ tenant: '', id: sub.id, metadata: undefined });
    if (p.$case === 'statusUpdate') subLast = state(p.value.status?.state);
  }
  out.subscribe = { kinds: subKinds, lastState: subLast };

  // CancelTask on a slow task started without waiting.
  const slow = await client.sendMessage(req(msg(`js-slow-${Date.now()}`, 'slow task', 'js-slow'),
    { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true }));
  out.slowState = state(slow.status?.state);
  const cancelled = await client.cancelTask({ tenant: '', id: slow.id, metadata: undefined });
  out.cancel = { state: state(cancelled.status?.state) };

  // Unknown task: an error from the server.
  try {
    await client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined });
    out.unknownTask = 'no error';
  } catch (e) {
    out.unknownTask = `${e.constructor?.name}: ${e.message}`;
  }

  // The extended card: getAgentCard above fetched it with the token
  // (the public card offers it); without a token it is refused.
  out.extendedCardOffered = !!card.capabilities?.extendedAgentCard;
  try {
    const anonCard = await factory('').createFromUrl(base);
    await anonCard.getAgentCard();
    out.noTokenCard = 'no error';
  } catch (e) {
    out.noTokenCard = `${e.constructor?.name}: ${e.message}`;
  }

  // No token: refused.
  try {
    const anon = await factory('').createFromUrl(base);
    await anon.sendMessage(req(msg(`js-anon-${Date.now()}`, 'hi', '')));
    out.noToken = 'no error';
  } catch (e) {
    out.noToken = `${e.constructor?.name}: ${e.message}`;
  }
}

main().then(() => {
  console.log(JSON.stringify(out));
}).catch((e) => {
  out.fatal = `${e.constructor?.name}: ${e.message}\n${e.stack}`;
  console.log(JSON.stringify(out));
  process.exit(1);
});
