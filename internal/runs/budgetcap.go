package runs

import (
	"math"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// estimatePrompt is the token estimate of what a model call reads: a token
// per four characters of the system prompt, every text block and every
// tool call's arguments (the count the offline model charges; real
// tokenizers land near it for English text).
func estimatePrompt(req domain.ModelRequest) int64 {
	n := utf8.RuneCountInString(req.System)
	for i := range req.Messages {
		blocks := req.Messages[i].Content.Blocks()
		for j := range blocks {
			switch blocks[j].Type {
			case domain.BlockText:
				n += utf8.RuneCountInString(blocks[j].Text)
			case domain.BlockToolCall:
				n += utf8.RuneCount(blocks[j].Arguments)
			}
		}
	}
	return int64((n + 3) / 4)
}

// capToBudget bounds req's output by what the tightest token and cost
// budgets above the run have left after its estimated prompt, and refuses
// the call (a BudgetExceeded naming the bound) when the estimate alone
// reaches what is left. price is the runtime's pricing (nil: unpriced).
func capToBudget(req *domain.ModelRequest, tight budgetLeft, modelRef string, price func(string, domain.Usage) float64) *domain.BudgetExceeded {
	if !tight.hasTokens && !tight.hasCost {
		return nil
	}
	prompt := estimatePrompt(*req)
	limit := int64(math.MaxInt64)
	if tight.hasTokens {
		if prompt >= tight.tokens {
			a := tight.tokensOf
			return &domain.BudgetExceeded{SessionKey: a.SessionKey, What: "tokens", Spent: float64(a.Usage.Tree.Tokens()),
				Limit: float64(a.Budget.Tokens), PromptTokens: prompt}
		}
		limit = min(limit, tight.tokens-prompt)
	}
	if tight.hasCost && price != nil {
		in := price(modelRef, domain.Usage{Input: prompt})
		perOut := price(modelRef, domain.Usage{Output: 1_000_000}) / 1_000_000
		a := tight.costOf
		if in >= tight.cost {
			return &domain.BudgetExceeded{SessionKey: a.SessionKey, What: "costUsd", Spent: a.Usage.Tree.CostUSD,
				Limit: a.Budget.CostUSD, PromptTokens: prompt}
		}
		if perOut > 0 {
			limit = min(limit, int64(min((tight.cost-in)/perOut, math.MaxInt32)))
		}
		if limit < 1 {
			return &domain.BudgetExceeded{SessionKey: a.SessionKey, What: "costUsd", Spent: a.Usage.Tree.CostUSD,
				Limit: a.Budget.CostUSD, PromptTokens: prompt}
		}
	}
	// A cap above what any model answers by default is left out: providers
	// refuse a maxTokens past the model's own limit, which a large budget
	// would otherwise ask for. An answer longer than the budget left then
	// ends its run error (finish), never ok.
	if limit < maxBudgetCap && (req.MaxTokens <= 0 || int64(req.MaxTokens) > limit) {
		req.MaxTokens = int(limit)
	}
	return nil
}

// maxBudgetCap is the largest output cap a budget sets: Anthropic's
// default maxTokens, below every current model's output limit.
const maxBudgetCap = 4096
