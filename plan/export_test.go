package plan

// CheckDepth is checkDepth for the external tests.
var CheckDepth = checkDepth
