// A2A push notifications with the official JavaScript SDK (@a2a-js/sdk):
// start a slow task without waiting, register a push config for it
// (CreateTaskPushNotificationConfig), read it back (Get, List), and print
// one JSON object of what the SDK saw. The receiver is the Go test's.
// Env: A2A_BASE (gateway URL), A2A_TOKEN, PUSH_URL, PUSH_TOKEN.
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';

const out = {};

function authFetch(tok) {
  return (input, init = {}) => {
    const headers = new Headers(init.headers || {});
    headers.set('Authorization', `Bearer ${tok}`);
    return fetch(input, { ...init, headers });
  };
}

async function main() {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch(process.env.A2A_TOKEN) })],
  }));
  const client = await factory.createFromUrl(process.env.A2A_BASE);
  const card = await client.getAgentCard();
  out.pushNotifications = !!card.capabilities?.pushNotifications;

  const message = {
    messageId: `push-${Date.now()}`, contextId: 'js-push', taskId: '', role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: 'pushslow please' }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined, extensions: [], referenceTaskIds: [],
  };
  const task = await client.sendMessage({ tenant: '', message, metadata: undefined,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true } });
  out.taskId = task.id;
  out.initialState = TaskState[task.status?.state] ?? String(task.status?.state);

  const created = await client.createTaskPushNotificationConfig({ tenant: '', id: 'js-push-config', taskId: task.id,
    url: process.env.PUSH_URL, token: process.env.PUSH_TOKEN, authentication: undefined });
  out.created = { id: created.id, taskId: created.taskId, url: created.url, token: created.token };
  const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'js-push-config' });
  out.got = { id: got.id, url: got.url };
  const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
  out.listed = listed.configs.map((c) => c.id);
}

main().then(() => {
  console.log(JSON.stringify(out));
}, (err) => {
  out.fatal = `${err?.constructor?.name}: ${err?.message}`;
  console.log(JSON.stringify(out));
  process.exit(1);
});
