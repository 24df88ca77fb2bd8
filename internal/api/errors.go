package api

import "github.com/switchboard-go/switchboard/internal/domain"

func invalidf(format string, args ...any) error { return domain.Invalid(format, args...) }
