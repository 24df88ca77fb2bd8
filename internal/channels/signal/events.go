package signal

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// maxEventBytes bounds one server-sent event (signal-cli's are small; an
// attachment is a path, not its bytes).
const maxEventBytes = 1 << 20

// sseReader reads server-sent events.
type sseReader struct {
	sc *bufio.Scanner
}

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEventBytes)
	return &sseReader{sc: sc}
}

// next returns the next event's type and data (its data lines joined by
// "\n"); io.EOF when the stream ends.
func (r *sseReader) next() (string, []byte, error) {
	var typ string
	var data []string
	has := false
	for r.sc.Scan() {
		line := r.sc.Text()
		if line == "" {
			if has {
				return typ, []byte(strings.Join(data, "\n")), nil
			}
			typ = ""
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // a keep-alive comment
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			typ = value
		case "data":
			data = append(data, value)
			has = true
		}
	}
	if err := r.sc.Err(); err != nil {
		return "", nil, err
	}
	return "", nil, io.EOF
}

// receive is the data of a signal-cli `receive` event.
type receive struct {
	Account  string    `json:"account"`
	Envelope *envelope `json:"envelope"`
}

type envelope struct {
	Source       string       `json:"source"`
	SourceNumber string       `json:"sourceNumber"`
	SourceUUID   string       `json:"sourceUuid"`
	SourceName   string       `json:"sourceName"`
	Timestamp    int64        `json:"timestamp"`
	DataMessage  *dataMessage `json:"dataMessage"`
}

type dataMessage struct {
	Timestamp   int64        `json:"timestamp"`
	Message     string       `json:"message"`
	Attachments []attachment `json:"attachments"`
	GroupInfo   *struct {
		GroupID   string `json:"groupId"`
		GroupName string `json:"groupName"`
	} `json:"groupInfo"`
	Mentions []struct {
		Number string `json:"number"`
		UUID   string `json:"uuid"`
	} `json:"mentions"`
	Quote *struct {
		Author       string `json:"author"`
		AuthorNumber string `json:"authorNumber"`
		AuthorUUID   string `json:"authorUuid"`
	} `json:"quote"`
}

// attachment is a file of a received message, as signal-cli describes
// it: the id getAttachment fetches it by.
type attachment struct {
	ID          string `json:"id"`
	ContentType string `json:"contentType"`
	Filename    string `json:"filename"`
	Size        int64  `json:"size"`
}

// errNotMessage is an event that carries no user message (a receipt, a
// typing notice, a sync of the account's own sends).
var errNotMessage = errors.New("not a user message")

// decodeEvent turns a receive event's data into an Inbound for account
// (self and selfUUID are the bot's own number and uuid) and the
// attachments to fetch onto it.
func decodeEvent(accountID, self, selfUUID string, data []byte) (channels.Inbound, []attachment, error) {
	var r receive
	if err := json.Unmarshal(data, &r); err != nil {
		return channels.Inbound{}, nil, err
	}
	e := r.Envelope
	if e == nil || e.DataMessage == nil {
		return channels.Inbound{}, nil, errNotMessage
	}
	var atts []attachment
	for _, a := range e.DataMessage.Attachments {
		if strings.TrimSpace(a.ID) != "" {
			atts = append(atts, a)
		}
	}
	if strings.TrimSpace(e.DataMessage.Message) == "" && len(atts) == 0 {
		return channels.Inbound{}, nil, errNotMessage
	}
	in, err := toInbound(accountID, self, selfUUID, e)
	return in, atts, err
}

// toInbound is a received message as an Inbound for account.
func toInbound(accountID, self, selfUUID string, e *envelope) (channels.Inbound, error) {
	number := strings.TrimSpace(e.SourceNumber)
	if number == "" && strings.HasPrefix(e.Source, "+") {
		number = e.Source
	}
	uuid := strings.ToLower(strings.TrimSpace(e.SourceUUID))
	if number == "" && uuid == "" {
		return channels.Inbound{}, errors.New("envelope without a source")
	}
	if (number != "" && number == self) || (uuid != "" && strings.EqualFold(uuid, selfUUID)) {
		return channels.Inbound{}, errNotMessage
	}
	dm := e.DataMessage
	ts := dm.Timestamp
	if ts == 0 {
		ts = e.Timestamp
	}
	sender := number
	if sender == "" {
		sender = uuid
	}
	m := channels.Inbound{Channel: Channel, AccountID: accountID, SenderID: sender, SenderName: e.SourceName,
		MessageID: strconv.FormatInt(ts, 10), Text: dm.Message,
		// A Signal message is identified by its author and timestamp.
		EventID: sender + ":" + strconv.FormatInt(ts, 10)}
	if number != "" && uuid != "" {
		m.PeerAliases = []string{uuid}
	}
	if g := dm.GroupInfo; g != nil && strings.TrimSpace(g.GroupID) != "" {
		m.ChatType, m.ChatID, m.ChatTitle = channels.ChatGroup, strings.TrimSpace(g.GroupID), g.GroupName
		m.To = Channel + ":group:" + m.ChatID
	} else {
		m.ChatType, m.ChatID, m.ChatTitle = channels.ChatDirect, sender, e.SourceName
		m.To = Channel + ":" + sender
	}
	isSelf := func(num, id string) bool {
		return (self != "" && num == self) || (selfUUID != "" && strings.EqualFold(id, selfUUID))
	}
	for _, x := range dm.Mentions {
		if isSelf(x.Number, x.UUID) {
			m.Mentioned = true
		}
	}
	if q := dm.Quote; q != nil && (isSelf(q.AuthorNumber, q.AuthorUUID) || isSelf(q.Author, q.Author)) {
		m.Mentioned = true
	}
	return m, nil
}
