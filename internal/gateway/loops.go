package gateway

import (
	"context"
	"net/http"

	"github.com/switchboard-go/switchboard/internal/api"
)

// mLoopsList is loops.list {} → api.LoopsResult: the edges the loop
// breaker paused (operator only).
func (s *Server) mLoopsList(ctx context.Context, cl *call) (any, error) {
	var p struct{}
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	return s.eng.LoopsList(ctx, cl.principal(""))
}

// mLoopsResume is loops.resume {from, to} → api.LoopResumeResult.
func (s *Server) mLoopsResume(ctx context.Context, cl *call) (any, error) {
	var p api.LoopResumeRequest
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	return s.eng.LoopResume(ctx, cl.principal(""), p)
}

// apiLoops is GET /api/loops → api.LoopsResult.
func (s *Server) apiLoops(r *http.Request, g grant) (any, error) {
	return s.eng.LoopsList(r.Context(), g.principal(as(r)))
}

// apiLoopsResume is POST /api/loops/resume {from, to} → api.LoopResumeResult.
func (s *Server) apiLoopsResume(r *http.Request, g grant) (any, error) {
	var b api.LoopResumeRequest
	if err := s.readBody(r, &b); err != nil {
		return nil, err
	}
	return s.eng.LoopResume(r.Context(), g.principal(as(r)), b)
}
