package wire

// AuthenticationInfo is how a push notification authenticates to its
// receiver: an HTTP Authorization header "<scheme> <credentials>".
type AuthenticationInfo struct {
	Scheme      string `json:"scheme"`
	Credentials string `json:"credentials,omitempty"`
}

// TaskPushNotificationConfig is a push notification config of a task
// (protocol 1.0): the params of CreateTaskPushNotificationConfig, the
// result of Create and Get, an entry of List.
type TaskPushNotificationConfig struct {
	Tenant         string              `json:"tenant,omitempty"`
	ID             string              `json:"id"`
	TaskID         string              `json:"taskId"`
	URL            string              `json:"url"`
	Token          string              `json:"token,omitempty"`
	Authentication *AuthenticationInfo `json:"authentication,omitempty"`
}

// PushConfigRequest is the params of GetTaskPushNotificationConfig and
// DeleteTaskPushNotificationConfig.
type PushConfigRequest struct {
	Tenant string `json:"tenant,omitempty"`
	TaskID string `json:"taskId"`
	ID     string `json:"id"`
}

// ListPushConfigsRequest is the params of ListTaskPushNotificationConfigs.
type ListPushConfigsRequest struct {
	Tenant    string `json:"tenant,omitempty"`
	TaskID    string `json:"taskId"`
	PageSize  int32  `json:"pageSize,omitempty"`
	PageToken string `json:"pageToken,omitempty"`
}

// ListPushConfigsResponse is the result of ListTaskPushNotificationConfigs.
type ListPushConfigsResponse struct {
	Configs       []TaskPushNotificationConfig `json:"configs"`
	NextPageToken string                       `json:"nextPageToken"`
}
