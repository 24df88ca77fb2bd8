package api

// SendRequest are sessions_send's parameters.
type SendRequest struct {
	SessionKey string
	Label      string
	AgentID    string
	Message    string
	// TimeoutSeconds: nil means the default (30); 0 means do not wait.
	TimeoutSeconds *int
	IdempotencyKey string
	// Mode is followup (default), steer or notify (SendModes).
	Mode string
}

// Delivery says how the announce of a send will be delivered.
type Delivery struct {
	Status string `json:"status"`
	Mode   string `json:"mode"`
}

// SendResult is the payload of sessions_send.
type SendResult struct {
	RunID  string `json:"runId,omitempty"`
	Status string `json:"status"`
	// MessageID is the id of the message a notify wrote.
	MessageID  string    `json:"messageId,omitempty"`
	Reply      string    `json:"reply,omitempty"`
	Error      string    `json:"error,omitempty"`
	SessionKey string    `json:"sessionKey,omitempty"`
	Delivery   *Delivery `json:"delivery,omitempty"`
	// ApprovalID names the approval that holds the send (status
	// pending_approval), or that decided it.
	ApprovalID string `json:"approvalId,omitempty"`
}
