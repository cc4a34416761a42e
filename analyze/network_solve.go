package analyze

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// routing is n's routing as a dense K×K matrix, P[i][j] the probability
// of going from station i to station j.
func (n Network) routing() [][]float64 {
	index := n.index()
	p := make([][]float64, len(n.Stations))
	for i, s := range n.Stations {
		p[i] = make([]float64, len(n.Stations))
		for to, q := range s.Route {
			p[i][index[to]] += q
		}
	}
	return p
}

func (n Network) index() map[string]int {
	index := make(map[string]int, len(n.Stations))
	for i, s := range n.Stations {
		index[s.Name] = i
	}
	return index
}

// checkGraph checks that the routing can carry the traffic: in an open
// network every station receives some and every customer can leave; in a
// closed one routed by probabilities every station reaches every other.
// Without it the traffic equations would be singular. O(K + routes).
func (n Network) checkGraph() error {
	if n.Closed() && n.Stations[0].Visits > 0 {
		return nil
	}
	succ := make([][]int, len(n.Stations))
	pred := make([][]int, len(n.Stations))
	index := n.index()
	var sources, exits []int
	for i, s := range n.Stations {
		sum := 0.0
		for to, p := range s.Route {
			if p > 0 {
				succ[i] = append(succ[i], index[to])
				pred[index[to]] = append(pred[index[to]], i)
			}
			sum += p
		}
		if s.Arrivals > 0 {
			sources = append(sources, i)
		}
		if sum < 1-routeSlack {
			exits = append(exits, i)
		}
	}
	if n.Closed() {
		sources, exits = []int{0}, []int{0}
	}
	if miss := n.unreached(sources, succ); miss != "" {
		if n.Closed() {
			return inputErr("no route leads from %s to %s", stationName(0, n.Stations[0].Name), miss)
		}
		return inputErr("no traffic reaches %s: no arrivals and no route to it", miss)
	}
	if miss := n.unreached(exits, pred); miss != "" {
		if n.Closed() {
			return inputErr("no route leads from %s back to %s", miss, stationName(0, n.Stations[0].Name))
		}
		return inputErr("customers at %s never leave: every route from there stays in the network", miss)
	}
	return nil
}

// unreached names the stations not reached from start along edges, or "".
func (n Network) unreached(start []int, edges [][]int) string {
	seen := make([]bool, len(n.Stations))
	stack := append([]int(nil), start...)
	for _, i := range start {
		seen[i] = true
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, j := range edges[i] {
			if !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	var miss []string
	for i, ok := range seen {
		if !ok {
			miss = append(miss, stationName(i, n.Stations[i].Name))
		}
	}
	return strings.Join(miss, ", ")
}

// trafficSystem is I - Pᵀ, the matrix of the traffic equations
// x = b + xP written as (I - Pᵀ)x = b.
func trafficSystem(p [][]float64) [][]float64 {
	a := make([][]float64, len(p))
	for j := range p {
		a[j] = make([]float64, len(p))
		a[j][j] = 1
		for i := range p {
			a[j][i] -= p[i][j]
		}
	}
	return a
}

// solveLinear solves a·x = b by Gaussian elimination with partial pivoting,
// overwriting a and b: O(K³), a look at ctx every row.
func solveLinear(ctx context.Context, a [][]float64, b []float64) ([]float64, error) {
	k := len(b)
	for col := range k {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		piv := col
		for r := col + 1; r < k; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
				piv = r
			}
		}
		if a[piv][col] == 0 {
			return nil, fmt.Errorf("the traffic equations are singular at column %d", col+1)
		}
		a[col], a[piv] = a[piv], a[col]
		b[col], b[piv] = b[piv], b[col]
		for r := col + 1; r < k; r++ {
			f := a[r][col] / a[col][col]
			if f == 0 {
				continue
			}
			for c := col; c < k; c++ {
				a[r][c] -= f * a[col][c]
			}
			b[r] -= f * b[col]
		}
	}
	x := make([]float64, k)
	for r := k - 1; r >= 0; r-- {
		s := b[r]
		for c := r + 1; c < k; c++ {
			s -= a[r][c] * x[c]
		}
		x[r] = s / a[r][r]
	}
	return x, nil
}
