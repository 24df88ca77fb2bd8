package wire

import "encoding/json"

// SendMessageConfiguration tunes one SendMessage or SendStreamingMessage.
type SendMessageConfiguration struct {
	AcceptedOutputModes []string `json:"acceptedOutputModes,omitempty"`
	// TaskPushNotificationConfig is kept raw: the server decodes it as a
	// TaskPushNotificationConfig when it serves push notifications, and
	// refuses it by name when it does not.
	TaskPushNotificationConfig json.RawMessage `json:"taskPushNotificationConfig,omitempty"`
	// PushNotificationConfig and PushNotification are the names earlier
	// drafts and SDKs give the same field; a push config under any of them
	// is honoured, or refused rather than silently ignored (the client
	// would wait for webhooks that never come).
	PushNotificationConfig json.RawMessage `json:"pushNotificationConfig,omitempty"`
	PushNotification       json.RawMessage `json:"pushNotification,omitempty"`
	HistoryLength          *int32          `json:"historyLength,omitempty"`
	// ReturnImmediately asks SendMessage to answer once the task exists
	// instead of waiting for a terminal or interrupted state.
	ReturnImmediately bool `json:"returnImmediately,omitempty"`
}

// SendMessageRequest is the params of SendMessage and SendStreamingMessage.
type SendMessageRequest struct {
	Tenant        string                    `json:"tenant,omitempty"`
	Message       *Message                  `json:"message"`
	Configuration *SendMessageConfiguration `json:"configuration,omitempty"`
	Metadata      map[string]any            `json:"metadata,omitempty"`
}

// SendMessageResponse is the result of SendMessage: exactly one field is set.
type SendMessageResponse struct {
	Task    *Task    `json:"task,omitempty"`
	Message *Message `json:"message,omitempty"`
}

// GetTaskRequest is the params of GetTask.
type GetTaskRequest struct {
	Tenant        string `json:"tenant,omitempty"`
	ID            string `json:"id"`
	HistoryLength *int32 `json:"historyLength,omitempty"`
}

// CancelTaskRequest is the params of CancelTask (result: Task).
type CancelTaskRequest struct {
	Tenant   string         `json:"tenant,omitempty"`
	ID       string         `json:"id"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// SubscribeToTaskRequest is the params of SubscribeToTask (result: a stream
// of StreamResponse).
type SubscribeToTaskRequest struct {
	Tenant string `json:"tenant,omitempty"`
	ID     string `json:"id"`
}
