// A remote A2A agent built on the official JavaScript SDK (@a2a-js/sdk,
// A2A 1.0, JSON-RPC binding), for switchboard's sessions_send to reach in
// tests. It answers every message with a completed task whose artifact
// says what it received, so the Go test can check the text, the contextId
// and the switchboard.chain metadata that crossed the wire:
//
//   remote <name> ctx=<contextId> chain=<JSON of metadata["switchboard.chain"]> got: <text>
//
// A message "fail" ends the task TASK_STATE_FAILED; "slow <ms>" completes
// after <ms> milliseconds. With A2A_TOKEN set, requests without
// "Authorization: Bearer <token>" get 401 (the card stays public).
// With A2A_LEGACY=1 the card offers only a protocol 0.3 JSON-RPC interface
// and the SDK's v0.3 compatibility layer answers (message/send, tasks/get).
// The server listens on 127.0.0.1 at a free port and prints
// "listening <port>" once it accepts connections.
import express from 'express';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { Role, TaskState } from '@a2a-js/sdk';

const name = process.env.A2A_NAME || 'jsagent';
const token = process.env.A2A_TOKEN || '';
const legacy = process.env.A2A_LEGACY === '1';
let port = 0;

const card = () => ({
  name,
  description: 'A test agent built on @a2a-js/sdk',
  version: '1.0.0',
  supportedInterfaces: [
    { url: `http://127.0.0.1:${port}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: legacy ? '0.3' : '1.0', tenant: '' },
  ],
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'echo', description: 'says what it got', tags: ['test'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
});

const text = (m) => (m?.parts || []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

const executor = {
  async execute(rc, bus) {
    const msg = rc.userMessage;
    const got = text(msg);
    const chain = msg.metadata ? msg.metadata['switchboard.chain'] : undefined;
    const task = {
      id: rc.taskId, contextId: rc.contextId, artifacts: [], history: [msg], metadata: {},
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    };
    bus.publish(AgentEvent.task(task));
    const slow = /^slow (\d+)$/.exec(got);
    if (slow) await new Promise((r) => setTimeout(r, Number(slow[1])));
    if (got === 'fail') {
      bus.publish(AgentEvent.statusUpdate({
        taskId: rc.taskId, contextId: rc.contextId, metadata: {},
        status: {
          state: TaskState.TASK_STATE_FAILED, timestamp: new Date().toISOString(),
          message: { messageId: `m-${rc.taskId}`, contextId: rc.contextId, taskId: rc.taskId, role: Role.ROLE_AGENT, parts: [{ content: { $case: 'text', value: 'the js agent failed on purpose' }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [], referenceTaskIds: [] },
        },
      }));
      bus.finished();
      return;
    }
    const reply = `remote ${name} ctx=${rc.contextId} chain=${JSON.stringify(chain ?? null)} got: ${got}`;
    bus.publish(AgentEvent.artifactUpdate({
      taskId: rc.taskId, contextId: rc.contextId, append: false, lastChunk: true, metadata: {},
      artifact: { artifactId: `a-${rc.taskId}`, name: 'reply', description: '', parts: [{ content: { $case: 'text', value: reply }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [] },
    }));
    bus.publish(AgentEvent.statusUpdate({
      taskId: rc.taskId, contextId: rc.contextId, metadata: {},
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() },
    }));
    bus.finished();
  },
  async cancelTask() {},
};

const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card(), legacyCompat: { enabled: legacy } }));
app.use('/a2a/jsonrpc', (req, res, next) => {
  if (token && req.headers.authorization !== `Bearer ${token}`) {
    res.status(401).json({ error: 'unauthorized' });
    return;
  }
  next();
});
app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: legacy } }));
const server = app.listen(0, '127.0.0.1', () => {
  port = server.address().port;
  console.log(`listening ${port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
