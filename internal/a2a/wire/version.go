package wire

// Protocol versions and the header that negotiates them.
const (
	// Version is the protocol version these types describe.
	Version = "1.0"
	// LegacyVersion is the previous generation still sent by many clients.
	LegacyVersion = "0.3"
	// VersionHeader carries the version a 1.0 client speaks. The
	// specification reads a request without it as 0.3.
	VersionHeader = "A2A-Version"
	// ExtensionsHeader lists extension URIs a client activates.
	ExtensionsHeader = "A2A-Extensions"
	// CardPath is the well-known path of an agent card, relative to a base URL.
	CardPath = "/.well-known/agent-card.json"
	// BindingJSONRPC names the JSON-RPC protocol binding in AgentInterface.
	BindingJSONRPC = "JSONRPC"
	// JSONRPCVersion is the only JSON-RPC version A2A uses.
	JSONRPCVersion = "2.0"
)

// JSON-RPC method names of protocol 1.0.
const (
	MethodSendMessage          = "SendMessage"
	MethodSendStreamingMessage = "SendStreamingMessage"
	MethodGetTask              = "GetTask"
	MethodListTasks            = "ListTasks"
	MethodCancelTask           = "CancelTask"
	MethodSubscribeToTask      = "SubscribeToTask"
	MethodGetExtendedAgentCard = "GetExtendedAgentCard"

	MethodCreatePushConfig = "CreateTaskPushNotificationConfig"
	MethodGetPushConfig    = "GetTaskPushNotificationConfig"
	// MethodListPushConfigs is the name the JSON-RPC binding uses;
	// MethodListPushConfig is the RPC's name in a2a.proto, which some
	// clients send as is.
	MethodListPushConfigs  = "ListTaskPushNotificationConfigs"
	MethodListPushConfig   = "ListTaskPushNotificationConfig"
	MethodDeletePushConfig = "DeleteTaskPushNotificationConfig"
)

// JSON-RPC method names of protocol 0.3 (their params and results use the 0.3
// shapes, see github.com/a2aproject/a2a-go/a2a).
const (
	LegacyMethodSendMessage   = "message/send"
	LegacyMethodStreamMessage = "message/stream"
	LegacyMethodGetTask       = "tasks/get"
	LegacyMethodCancelTask    = "tasks/cancel"
	LegacyMethodResubscribe   = "tasks/resubscribe"
	// LegacyMethodExtendedCard is 0.3's GetExtendedAgentCard.
	LegacyMethodExtendedCard = "agent/getAuthenticatedExtendedCard"

	LegacyMethodSetPushConfig    = "tasks/pushNotificationConfig/set"
	LegacyMethodGetPushConfig    = "tasks/pushNotificationConfig/get"
	LegacyMethodListPushConfig   = "tasks/pushNotificationConfig/list"
	LegacyMethodDeletePushConfig = "tasks/pushNotificationConfig/delete"
)
