package api

// Nullable is a patch value with the three states OpenClaw's sessions.patch
// tells apart: absent (the zero Nullable: leave the setting as it is), null
// (clear it) and a value. A *string has only two, so a surface that maps
// null to "" loses the difference between clearing a setting and setting
// it to "", which a field such as label refuses (`invalid label: empty`).
type Nullable struct {
	given, null bool
	value       string
}

// SetValue is a Nullable holding v ("" included: the field's validation
// decides whether "" is allowed).
func SetValue(v string) Nullable { return Nullable{given: true, value: v} }

// SetNull is a Nullable that clears its setting.
func SetNull() Nullable { return Nullable{given: true, null: true} }

// Given reports whether the field was given at all (null or a value).
func (n Nullable) Given() bool { return n.given }

// IsNull reports whether the field was given as null.
func (n Nullable) IsNull() bool { return n.given && n.null }

// Value returns the value and whether there is one (false when the field
// is absent or null).
func (n Nullable) Value() (string, bool) { return n.value, n.given && !n.null }

// Wire is the JSON value of a given field: nil for null, else the value.
// It must not be called on an absent field (check Given first).
func (n Nullable) Wire() any {
	if n.null {
		return nil
	}
	return n.value
}
