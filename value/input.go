package value

// InputSpace is what PostgreSQL's input functions skip around a value
// (its scanner_isspace): every Parse function here trims it, and so do
// exec's text-to-integer casts.
const InputSpace = " \t\n\v\f\r"
