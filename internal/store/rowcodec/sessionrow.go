package rowcodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// A session row is stored twice over: the columns SQL filters, orders and
// indexes on (key, agent_id, session_id, kind, spawned_by, label,
// updated_at, archived_at, search_text), and the whole domain.Session
// encoded in one BLOB column, data. Reads select data alone: decoding one
// blob in Go costs a fraction of fetching 37 columns through the SQLite C
// API (each column access takes the connection mutex, several times), and
// every string of a decoded row shares one allocation.
//
// The encoding is a version byte, then one entry per non-zero field: a
// tag byte and the value (strings as a uvarint length and the bytes,
// integers as zig-zag varints, floats as 8 little-endian bytes, true
// booleans and non-nil Origin/DeliveryContext as the tag alone). Tags are
// stored on disk: never renumber one, only add new ones.

// rowFormat is the version byte that starts every encoded row.
const rowFormat = 1

const (
	tagKey byte = iota + 1
	tagAgentID
	tagSessionID
	tagKind
	tagChannel
	tagChatType
	tagLabel
	tagDisplayName
	tagOrigin // Origin is non-nil; its fields follow as their own tags
	tagOriginProvider
	tagOriginAccountID
	tagDelivery // DeliveryContext is non-nil
	tagDeliveryChannel
	tagDeliveryTo
	tagDeliveryAccountID
	tagDeliveryThreadID
	tagLastChannel
	tagLastTo
	tagLastAccount
	tagSpawnedBy
	tagSpawnDepth
	tagSpawnRunID
	tagSandboxed
	tagModel
	tagModelOverride
	tagModelProvider
	tagThinkingLevel
	tagVerboseLevel
	tagSendPolicy
	tagSystemSent
	tagAbortedLastRun
	tagInputTokens
	tagOutputTokens
	tagTotalTokens
	tagContextTokens
	tagEstimatedCostUSD
	tagStatus
	tagStartedAt
	tagEndedAt
	tagCreatedAt
	tagUpdatedAt
	tagArchiveAt
	tagArchivedAt
	tagForkedFromParent
)

// appendSessionRow appends the encoding of s to b.
func appendSessionRow(b []byte, s *domain.Session) []byte {
	b = append(b, rowFormat)
	str := func(tag byte, v string) {
		if v != "" {
			b = append(b, tag)
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
	}
	num := func(tag byte, v int64) {
		if v != 0 {
			b = append(b, tag)
			b = binary.AppendVarint(b, v)
		}
	}
	flag := func(tag byte, v bool) {
		if v {
			b = append(b, tag)
		}
	}
	str(tagKey, s.Key)
	str(tagAgentID, s.AgentID)
	str(tagSessionID, s.SessionID)
	str(tagKind, s.Kind)
	str(tagChannel, s.Channel)
	str(tagChatType, s.ChatType)
	str(tagLabel, s.Label)
	str(tagDisplayName, s.DisplayName)
	if o := s.Origin; o != nil {
		b = append(b, tagOrigin)
		str(tagOriginProvider, o.Provider)
		str(tagOriginAccountID, o.AccountID)
	}
	if d := s.Delivery; d != nil {
		b = append(b, tagDelivery)
		str(tagDeliveryChannel, d.Channel)
		str(tagDeliveryTo, d.To)
		str(tagDeliveryAccountID, d.AccountID)
		str(tagDeliveryThreadID, d.ThreadID)
	}
	str(tagLastChannel, s.LastChannel)
	str(tagLastTo, s.LastTo)
	str(tagLastAccount, s.LastAccount)
	str(tagSpawnedBy, s.SpawnedBy)
	num(tagSpawnDepth, int64(s.SpawnDepth))
	str(tagSpawnRunID, s.SpawnRunID)
	flag(tagSandboxed, s.Sandboxed)
	str(tagModel, s.Model)
	str(tagModelOverride, s.ModelOverride)
	str(tagModelProvider, s.ModelProvider)
	str(tagThinkingLevel, s.ThinkingLevel)
	str(tagVerboseLevel, s.VerboseLevel)
	str(tagSendPolicy, s.SendPolicy)
	flag(tagSystemSent, s.SystemSent)
	flag(tagAbortedLastRun, s.AbortedLastRun)
	num(tagInputTokens, s.InputTokens)
	num(tagOutputTokens, s.OutputTokens)
	num(tagTotalTokens, s.TotalTokens)
	num(tagContextTokens, s.ContextTokens)
	// Compare bits, not values: -0.0 must round-trip too.
	if bits := math.Float64bits(s.EstimatedCostUSD); bits != 0 {
		b = append(b, tagEstimatedCostUSD)
		b = binary.LittleEndian.AppendUint64(b, bits)
	}
	str(tagStatus, s.Status)
	num(tagStartedAt, s.StartedAt)
	num(tagEndedAt, s.EndedAt)
	num(tagCreatedAt, s.CreatedAt)
	num(tagUpdatedAt, s.UpdatedAt)
	num(tagArchiveAt, s.ArchiveAt)
	num(tagArchivedAt, s.ArchivedAt)
	flag(tagForkedFromParent, s.ForkedFromParent)
	return b
}

var errRowTruncated = errors.New("truncated")

// decodeSessionRow decodes a row written by appendSessionRow into s.
// Strings of s are substrings of row, so one allocation backs them all.
func decodeSessionRow(row string, s *domain.Session) error {
	*s = domain.Session{}
	if len(row) == 0 || row[0] != rowFormat {
		if len(row) == 0 {
			return errors.New("session row: empty")
		}
		return fmt.Errorf("session row: unknown format %d", row[0])
	}
	i := 1
	str := func() (string, error) {
		n, w := uvarint(row[i:])
		if w <= 0 || n > uint64(len(row)-i-w) {
			return "", errRowTruncated
		}
		i += w
		v := row[i : i+int(n)]
		i += int(n)
		return v, nil
	}
	num := func() (int64, error) {
		ux, w := uvarint(row[i:])
		if w <= 0 {
			return 0, errRowTruncated
		}
		i += w
		x := int64(ux >> 1)
		if ux&1 != 0 {
			x = ^x
		}
		return x, nil
	}
	for i < len(row) {
		tag := row[i]
		i++
		var (
			err  error
			sp   *string
			np   *int64
			bp   *bool
			n    int64
			cost = false
		)
		switch tag {
		case tagKey:
			sp = &s.Key
		case tagAgentID:
			sp = &s.AgentID
		case tagSessionID:
			sp = &s.SessionID
		case tagKind:
			sp = &s.Kind
		case tagChannel:
			sp = &s.Channel
		case tagChatType:
			sp = &s.ChatType
		case tagLabel:
			sp = &s.Label
		case tagDisplayName:
			sp = &s.DisplayName
		case tagOrigin:
			s.Origin = new(domain.Origin)
			continue
		case tagOriginProvider, tagOriginAccountID:
			if s.Origin == nil {
				return fmt.Errorf("session row: origin field %d without origin", tag)
			}
			sp = &s.Origin.Provider
			if tag == tagOriginAccountID {
				sp = &s.Origin.AccountID
			}
		case tagDelivery:
			s.Delivery = new(domain.DeliveryContext)
			continue
		case tagDeliveryChannel, tagDeliveryTo, tagDeliveryAccountID, tagDeliveryThreadID:
			d := s.Delivery
			if d == nil {
				return fmt.Errorf("session row: deliveryContext field %d without deliveryContext", tag)
			}
			sp = [...]*string{&d.Channel, &d.To, &d.AccountID, &d.ThreadID}[tag-tagDeliveryChannel]
		case tagLastChannel:
			sp = &s.LastChannel
		case tagLastTo:
			sp = &s.LastTo
		case tagLastAccount:
			sp = &s.LastAccount
		case tagSpawnedBy:
			sp = &s.SpawnedBy
		case tagSpawnDepth:
			if n, err = num(); err == nil {
				if n < math.MinInt32 || n > math.MaxInt32 {
					return fmt.Errorf("session row: spawnDepth %d out of range", n)
				}
				s.SpawnDepth = int(n)
			}
		case tagSpawnRunID:
			sp = &s.SpawnRunID
		case tagSandboxed:
			bp = &s.Sandboxed
		case tagModel:
			sp = &s.Model
		case tagModelOverride:
			sp = &s.ModelOverride
		case tagModelProvider:
			sp = &s.ModelProvider
		case tagThinkingLevel:
			sp = &s.ThinkingLevel
		case tagVerboseLevel:
			sp = &s.VerboseLevel
		case tagSendPolicy:
			sp = &s.SendPolicy
		case tagSystemSent:
			bp = &s.SystemSent
		case tagAbortedLastRun:
			bp = &s.AbortedLastRun
		case tagInputTokens:
			np = &s.InputTokens
		case tagOutputTokens:
			np = &s.OutputTokens
		case tagTotalTokens:
			np = &s.TotalTokens
		case tagContextTokens:
			np = &s.ContextTokens
		case tagEstimatedCostUSD:
			cost = true
		case tagStatus:
			sp = &s.Status
		case tagStartedAt:
			np = &s.StartedAt
		case tagEndedAt:
			np = &s.EndedAt
		case tagCreatedAt:
			np = &s.CreatedAt
		case tagUpdatedAt:
			np = &s.UpdatedAt
		case tagArchiveAt:
			np = &s.ArchiveAt
		case tagArchivedAt:
			np = &s.ArchivedAt
		case tagForkedFromParent:
			bp = &s.ForkedFromParent
		default:
			return fmt.Errorf("session row: unknown field tag %d at byte %d", tag, i-1)
		}
		switch {
		case sp != nil:
			*sp, err = str()
		case np != nil:
			*np, err = num()
		case bp != nil:
			*bp = true
		case cost:
			if len(row)-i < 8 {
				err = errRowTruncated
				break
			}
			var bits uint64
			for k := 7; k >= 0; k-- {
				bits = bits<<8 | uint64(row[i+k])
			}
			s.EstimatedCostUSD = math.Float64frombits(bits)
			i += 8
		}
		if err != nil {
			return fmt.Errorf("session row: field %d: %w", tag, err)
		}
	}
	return nil
}

// uvarint is binary.Uvarint over a string, so decoding never copies the
// row into a []byte.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -(i + 1) // overflow
			}
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
