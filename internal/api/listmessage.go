package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// ListMessage is one message of a sessions_list row: the message in the
// raw transcript format with its stable id first, as sessions_history
// shows it (the reference's chat.history, which sessions_list reads, gives
// every message its id). It holds the JSON itself: a listing passes each
// stored message through instead of decoding it and encoding it again,
// which was a fifth of a messageLimit listing's CPU. Message decodes it
// for Go callers.
type ListMessage struct {
	// ID is the message's id (the "id" member of its JSON).
	ID string
	// js is the whole JSON object, "id" first.
	js []byte
}

// AppendListMessage appends the JSON of the message id whose raw
// transcript JSON is msg (an object, as the store holds it) to arena and
// returns the grown arena and the message, which refers to it: one
// buffer can hold every message of a listing.
func AppendListMessage(arena []byte, id string, msg []byte) ([]byte, ListMessage, error) {
	msg = bytes.TrimSpace(msg)
	if len(msg) < 2 || msg[0] != '{' || msg[len(msg)-1] != '}' {
		return arena, ListMessage{}, fmt.Errorf("message %q: stored JSON is not an object", id)
	}
	start := len(arena)
	arena = append(arena, `{"id":`...)
	arena = appendJSONString(arena, id)
	if inner := bytes.TrimSpace(msg[1:]); len(inner) > 1 {
		arena = append(arena, ',')
		arena = append(arena, inner...)
	} else {
		arena = append(arena, '}')
	}
	return arena, ListMessage{ID: id, js: arena[start:len(arena):len(arena)]}, nil
}

// ListMessageJSON is the message id whose JSON js already has the id as
// its first member (domain.StoredMessage's form); the message refers to js.
func ListMessageJSON(id string, js []byte) (ListMessage, error) {
	if !bytes.HasPrefix(js, []byte(`{"id":`)) || js[len(js)-1] != '}' {
		return ListMessage{}, fmt.Errorf("message %q: stored JSON is not an object with its id first", id)
	}
	return ListMessage{ID: id, js: js}, nil
}

// ListMessageOf is the list message of m (a store without stored JSON).
func ListMessageOf(m domain.Message) (ListMessage, error) {
	js, err := json.Marshal(m)
	if err != nil {
		return ListMessage{}, fmt.Errorf("message %q: %w", m.ID, err)
	}
	_, lm, err := AppendListMessage(nil, m.ID, js)
	return lm, err
}

// MarshalJSON writes the message as held.
func (m ListMessage) MarshalJSON() ([]byte, error) {
	if m.js == nil {
		return append(appendJSONString([]byte(`{"id":`), m.ID), '}'), nil
	}
	return m.js, nil
}

// UnmarshalJSON keeps the object (a client reading a listing).
func (m *ListMessage) UnmarshalJSON(b []byte) error {
	var head struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return errors.New("list message: not a JSON object")
	}
	*m = ListMessage{ID: head.ID, js: bytes.Clone(b)}
	return nil
}

// Message decodes the message (ID set, Seq and the other store fields
// not: the JSON does not carry them).
func (m ListMessage) Message() (domain.Message, error) {
	var dm domain.Message
	if m.js != nil {
		if err := json.Unmarshal(m.js, &dm); err != nil {
			return domain.Message{}, fmt.Errorf("message %q: %w", m.ID, err)
		}
	}
	dm.ID = m.ID
	return dm, nil
}

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it.
func appendJSONString(b []byte, s string) []byte {
	if needsEscape(s) {
		js, _ := json.Marshal(s)
		return append(b, js...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// needsEscape reports whether s is not written as it is between quotes.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return true
		}
	}
	return false
}
