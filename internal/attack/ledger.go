package attack

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/authppr/authppr/csr"
	"github.com/authppr/authppr/mask"
	"github.com/authppr/authppr/ppr"
	"github.com/authppr/authppr/replay"
)

// LedgerConfig shapes the ledger scenario: an agent's memory of payees,
// their accounts, spending categories and invoices, and transfers that pay
// each invoice into the account the agent's memory selects (top-1 PPR over
// the accounts, seeded by the invoice).
type LedgerConfig struct {
	Payees, Categories, Transfers int
	// StatedAccount is the share of invoices that name the account to pay
	// (an edge invoice - account); the others only name the payee.
	StatedAccount float64
	// TargetRank picks the victim payee by invoice count (0: most
	// invoiced); the attacker's account belongs to the least invoiced payee.
	TargetRank int
	// WriteWeight is the weight of the attacker's one edge.
	WriteWeight float64
	Damping     float64
	Seed        uint64
}

// DefaultLedger is the scenario of the selection-integrity paper: 499
// transfers, one untrusted write.
var DefaultLedger = LedgerConfig{
	Payees: 40, Categories: 8, Transfers: 499, StatedAccount: 0.2,
	TargetRank: 2, WriteWeight: 5, Damping: 0.5, Seed: 1,
}

// LedgerReport counts transfers paid into an account other than the
// invoice's payee's, per defence.
type LedgerReport struct {
	Transfers int    `json:"transfers"`
	Write     string `json:"untrusted_write"`
	// Misdirected transfers on the attacked memory.
	NoDefence  int `json:"misdirected_no_defence"`
	Provenance int `json:"misdirected_provenance"`
	Guard      int `json:"misdirected_guard"`
	// GuardRefused: transfers the guard refused on the attacked memory;
	// FalseAlarms: refusals of transfers the write did not change.
	GuardRefused int `json:"guard_refused"`
	FalseAlarms  int `json:"guard_false_alarms"`
	GuardTies    int `json:"guard_ties"`
	// On the clean memory (no untrusted write): misdirected transfers and
	// the guard's refusals (over-blocking).
	CleanMisdirected  int `json:"clean_misdirected"`
	CleanOverBlocking int `json:"clean_over_blocking"`
}

// Ledger runs the scenario: every transfer once on the clean memory and
// once after one structural write by the untrusted channel "peer" (an edge
// from the victim payee to the attacker's account, citing no invoice), each
// with no defence, a provenance-only defence (accept when the selected
// account is authenticated) and the replay guard (policy reject).
func Ledger(c LedgerConfig) (*LedgerReport, error) {
	if c.Payees < 2 || c.Categories < 1 || c.Transfers < 1 || c.TargetRank < 0 || c.TargetRank >= c.Payees-1 {
		return nil, fmt.Errorf("attack: ledger config %+v: need 2+ payees, 1+ category, 1+ transfer, 0 <= target rank < payees-1", c)
	}
	if !(c.StatedAccount >= 0 && c.StatedAccount <= 1) || !(c.WriteWeight > 0) {
		return nil, fmt.Errorf("attack: ledger config: stated-account share %v, want [0, 1]; write weight %v, want positive", c.StatedAccount, c.WriteWeight)
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x6c6564676572))
	payee := func(i int) string { return "payee:" + strconv.Itoa(i) }
	acct := func(i int) string { return "acct:" + strconv.Itoa(i) }
	cat := func(i int) string { return "cat:" + strconv.Itoa(i) }
	var edges []csr.Input
	add := func(a, b string) { edges = append(edges, csr.Input{Src: a, Dst: b, Weight: 1}) }
	for i := range c.Payees {
		add(payee(i), acct(i))
		add(payee(i), cat(i%c.Categories))
	}
	// Invoices go to payees with Zipf-like popularity.
	zipf := rand.NewZipf(rng, 1.2, 2, uint64(c.Payees-1))
	payeeOf := make([]int, c.Transfers)
	counts := make([]int, c.Payees)
	for j := range c.Transfers {
		p := int(zipf.Uint64())
		payeeOf[j], counts[p] = p, counts[p]+1
		inv := "inv:" + strconv.Itoa(j)
		add(inv, payee(p))
		add(inv, cat(p%c.Categories))
		if rng.Float64() < c.StatedAccount {
			add(inv, acct(p))
		}
	}
	order := make([]int, c.Payees)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return counts[b] - counts[a] })
	victim, attacker := order[c.TargetRank], order[c.Payees-1]
	write := csr.Input{Src: payee(victim), Dst: acct(attacker), Weight: c.WriteWeight, Channel: "peer"}

	r := &LedgerReport{Transfers: c.Transfers,
		Write: fmt.Sprintf("%s - %s, weight %g, channel peer, citing no invoice", write.Src, write.Dst, write.Weight)}
	clean, err := ledgerRun(c, edges, payeeOf, acct)
	if err != nil {
		return nil, err
	}
	attacked, err := ledgerRun(c, append(slices.Clip(edges), write), payeeOf, acct)
	if err != nil {
		return nil, err
	}
	for j := range c.Transfers {
		cl, at := clean[j], attacked[j]
		r.CleanMisdirected += boolInt(cl.selected != cl.correct)
		r.CleanOverBlocking += boolInt(cl.outcome == replay.Divergent)
		r.NoDefence += boolInt(at.native != at.correct)
		r.Provenance += boolInt(at.native != at.correct && at.provenanceOK)
		r.Guard += boolInt(at.selected != at.correct)
		r.GuardRefused += boolInt(at.outcome == replay.Divergent)
		r.FalseAlarms += boolInt(at.outcome == replay.Divergent && at.native == cl.native)
		r.GuardTies += boolInt(at.outcome == replay.Tie)
	}
	return r, nil
}

type transfer struct {
	native, selected, correct uint32
	provenanceOK              bool
	outcome                   replay.Outcome
}

// ledgerRun pays every invoice once through the guard on the memory made of
// edges; a provenance-only defence accepts when the paid account is
// authenticated.
func ledgerRun(c LedgerConfig, edges []csr.Input, payeeOf []int, acct func(int) string) ([]transfer, error) {
	b := csr.NewBuilder(false)
	for _, e := range edges {
		if _, err := b.AddEdge(e); err != nil {
			return nil, fmt.Errorf("attack: ledger: %w", err)
		}
	}
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("attack: ledger: %w", err)
	}
	accounts := make([]uint32, c.Payees)
	for i := range accounts {
		accounts[i], _ = g.ID(acct(i))
	}
	labels := mask.FromGraph(g)
	trust := mask.Trust(csr.DefaultChannel)
	guard, err := replay.New(g, labels, trust, replay.Options{})
	if err != nil {
		return nil, err
	}
	out := make([]transfer, c.Transfers)
	for j := range c.Transfers {
		inv, ok := g.ID("inv:" + strconv.Itoa(j))
		if !ok {
			return nil, fmt.Errorf("attack: ledger: invoice %d missing", j)
		}
		d, err := guard.Select(replay.Query{Seeds: []ppr.Seed{{Node: inv, Weight: 1}}, K: 1, Candidates: accounts, Damping: c.Damping})
		if err != nil {
			return nil, fmt.Errorf("attack: ledger transfer %d: %w", j, err)
		}
		t := transfer{native: d.Native[0].Node, selected: d.Selected[0].Node, correct: accounts[payeeOf[j]], outcome: d.Outcome}
		t.provenanceOK = authenticated(g, labels, trust, t.native)
		out[j] = t
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
