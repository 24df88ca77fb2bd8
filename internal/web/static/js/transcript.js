// Rendering of transcript messages (the raw OpenClaw message format):
// user and assistant messages, tool calls and results (collapsible),
// inter-session messages with where they came from, agent-to-agent step
// prompts (reply and announce steps, written by switchboard), and
// announces.

import {h, fmtClock, fmtISO, fmtNumber, sessionHref, modelRef} from './dom.js';

// messageKey identifies a message across refetches, so a live update only
// appends what is new (and open tool details stay open).
export function messageKey(m, i) {
  return `${i}|${m.timestamp || 0}|${m.role}|${m.toolCallId || ''}|${textOf(m).length}`;
}

// textOf joins a message's text (a bare string or text blocks).
export function textOf(m) {
  const c = m.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c.filter((b) => b && b.type === 'text').map((b) => b.text || '').join('\n');
}

function blocks(m) {
  if (typeof m.content === 'string') return [{type: 'text', text: m.content}];
  return Array.isArray(m.content) ? m.content : [];
}

function pretty(v) {
  if (v === undefined || v === null || v === '') return '';
  if (typeof v === 'string') {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  return JSON.stringify(v, null, 2);
}

function timeEl(ts) {
  return ts ? h('time', {class: 'msg-time', datetime: fmtISO(ts), title: fmtISO(ts), text: fmtClock(ts)}) : null;
}

function sourceLink(key) {
  return key ? h('a', {href: sessionHref(key), class: 'mono', text: key}) : h('span', {text: 'another session'});
}

function body(text) {
  return h('div', {class: 'msg-body', text});
}

// renderMessage returns the element for one message.
export function renderMessage(m) {
  switch (m.role) {
    case 'user':
      return renderUser(m);
    case 'assistant':
      return renderAssistant(m);
    case 'toolResult':
    case 'tool':
      return renderToolResult(m);
    default:
      return h('article', {class: 'msg msg-system'},
        h('header', {class: 'msg-head'}, h('span', {class: 'msg-role', text: m.role || 'message'}), timeEl(m.timestamp)),
        body(textOf(m)));
  }
}

function renderUser(m) {
  const p = m.provenance || {};
  if (m.kind === 'announce') {
    return h('article', {class: 'msg msg-announce', 'aria-label': 'Announce'},
      h('header', {class: 'msg-head'},
        h('span', {class: 'badge badge-announce', text: 'Announce'}),
        p.sourceSessionKey ? h('span', {class: 'msg-source'}, 'from ', sourceLink(p.sourceSessionKey)) : null,
        timeEl(m.timestamp)),
      body(textOf(m)));
  }
  if (p.kind === 'a2a_step') {
    // A step prompt switchboard wrote in an agent-to-agent exchange (the
    // reply-back turn or the announce step): never the other side's text.
    const step = p.step === 'reply' || p.step === 'announce' ? p.step : '';
    const label = step ? `${step[0].toUpperCase()}${step.slice(1)} step` : 'Agent-to-agent step';
    return h('article', {class: 'msg msg-user msg-a2a-step', 'aria-label': `Agent-to-agent ${step || 'step'} prompt`,
      dataset: {step: step || 'unknown'}},
      h('header', {class: 'msg-head'},
        h('span', {class: 'badge badge-a2a-step', text: label}),
        h('span', {class: 'msg-source'}, 'exchange with ', sourceLink(p.sourceSessionKey)),
        timeEl(m.timestamp)),
      body(textOf(m)));
  }
  if (p.kind === 'fork') {
    // Copied from the parent's conversation when this sub-agent was
    // spawned with context "fork": what it was given, not said to it.
    return h('article', {class: 'msg msg-user msg-fork', 'aria-label': 'Forked message'},
      h('header', {class: 'msg-head'}, forkBadge(p), timeEl(m.timestamp)),
      body(textOf(m)));
  }
  if (p.kind === 'inter_session') {
    return h('article', {class: 'msg msg-user msg-inter', 'aria-label': 'Inter-session message'},
      h('header', {class: 'msg-head'},
        h('span', {class: 'badge badge-inter', text: 'Inter-session'}),
        h('span', {class: 'msg-source'}, 'from ', sourceLink(p.sourceSessionKey),
          p.sourceTool ? [' via ', h('code', {text: p.sourceTool})] : null),
        timeEl(m.timestamp)),
      body(textOf(m)), images(m));
  }
  const who = p.kind === 'internal_system' ? 'System' : 'User';
  return h('article', {class: `msg msg-user${p.kind === 'internal_system' ? ' msg-internal' : ''}`},
    h('header', {class: 'msg-head'},
      h('span', {class: 'msg-role', text: who}),
      p.sourceChannel ? h('span', {class: 'msg-source', text: `via ${p.sourceChannel}`}) : null,
      timeEl(m.timestamp)),
    body(textOf(m)), images(m));
}

function renderAssistant(m) {
  const parts = [];
  for (const b of blocks(m)) {
    if (!b) continue;
    if (b.type === 'text' && b.text) {
      parts.push(body(b.text));
    } else if (b.type === 'thinking' && b.thinking) {
      parts.push(h('details', {class: 'fold fold-thinking'},
        h('summary', {}, 'Thinking'), h('div', {class: 'fold-body msg-body', text: b.thinking})));
    } else if (b.type === 'toolCall') {
      parts.push(h('details', {class: 'fold fold-call', dataset: {tool: b.name || ''}},
        h('summary', {}, h('span', {class: 'fold-kind', text: 'Tool call'}), h('code', {text: b.name || '?'})),
        h('pre', {class: 'fold-body', text: pretty(b.arguments) || '{}'})));
    } else if (b.type === 'image') {
      parts.push(imageBlock(b));
    }
  }
  if (m.errorMessage || m.stopReason === 'error') {
    parts.push(h('p', {class: 'msg-error', role: 'note', text: m.errorMessage || 'The model call failed.'}));
  } else if (m.stopReason === 'aborted') {
    parts.push(h('p', {class: 'msg-error', text: 'Stopped before it finished.'}));
  }
  const usage = m.usage && m.usage.totalTokens ? `${fmtNumber(m.usage.totalTokens)} tokens` : '';
  const forked = (m.provenance || {}).kind === 'fork';
  return h('article', {class: `msg msg-assistant${forked ? ' msg-fork' : ''}`},
    h('header', {class: 'msg-head'},
      forked ? forkBadge(m.provenance) : null,
      h('span', {class: 'msg-role', text: 'Assistant'}),
      m.model ? h('span', {class: 'msg-source mono', text: modelRef(m.provider, m.model)}) : null,
      usage ? h('span', {class: 'msg-source', text: usage}) : null,
      timeEl(m.timestamp)),
    parts);
}

// forkBadge marks a message copied from the parent's conversation.
function forkBadge(p) {
  return [h('span', {class: 'badge badge-fork', text: 'Forked'}),
    h('span', {class: 'msg-source'}, 'copied from ', sourceLink(p.sourceSessionKey))];
}

function renderToolResult(m) {
  const isError = m.isError === true;
  const text = textOf(m) || pretty(m.details);
  return h('details', {class: `fold fold-result msg${isError ? ' fold-error' : ''}`, dataset: {tool: m.toolName || ''}},
    h('summary', {},
      h('span', {class: 'fold-kind', text: isError ? 'Tool error' : 'Tool result'}),
      h('code', {text: m.toolName || 'tool'}),
      timeEl(m.timestamp)),
    h('pre', {class: 'fold-body', text: pretty(text)}));
}

function images(m) {
  return blocks(m).filter((b) => b && b.type === 'image').map(imageBlock);
}

function imageBlock(b) {
  if (b.data && b.mimeType && /^image\/(png|jpeg|gif|webp)$/.test(b.mimeType)) {
    return h('img', {class: 'msg-image', alt: 'Attached image', src: `data:${b.mimeType};base64,${b.data}`});
  }
  return h('p', {class: 'subtle', text: `[image${b.mimeType ? ' ' + b.mimeType : ''} omitted]`});
}
