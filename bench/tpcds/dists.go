package tpcds

// The value domains of the text columns, from the specification's
// distributions (clause 3.4 and the kit's tpcds.dst): every value the 99
// queries' substitution parameters filter on is in its domain, so the
// queries return rows (queries/README.md lists them).
var (
	// categories and their classes (item: i_category, i_class).
	categories = []string{"Books", "Children", "Electronics", "Home", "Jewelry", "Men", "Music", "Shoes", "Sports", "Women"}
	classes    = [][]string{
		{"arts", "business", "computers", "cooking", "entertainments", "fiction", "history", "home repair", "mystery", "parenting", "reference", "romance", "science", "self-help", "sports", "travel"},
		{"infants", "newborn", "school-uniforms", "toddlers"},
		{"audio", "automotive", "camcorders", "cameras", "disk drives", "dvd/vcr players", "karoke", "memory", "monitors", "musical", "personal", "portable", "scanners", "stereo", "televisions", "wireless"},
		{"accent", "bathroom", "bedding", "blinds/shades", "curtains/drapes", "decor", "flatware", "furniture", "glassware", "kids", "lighting", "mattresses", "paint", "rugs", "tables", "wallpaper"},
		{"birdal", "bracelets", "consignment", "costume", "custom", "diamonds", "earings", "estate", "gold", "jewelry boxes", "loose stones", "mens watch", "pendants", "rings", "semi-precious", "womens watch"},
		{"accessories", "pants", "shirts", "sports-apparel"},
		{"classical", "country", "pop", "rock"},
		{"athletic", "kids", "mens", "womens"},
		{"archery", "athletic shoes", "baseball", "basketball", "camping", "fishing", "fitness", "football", "golf", "guns", "hockey", "optics", "outdoor", "pools", "sailing", "tennis"},
		{"dresses", "fragrances", "maternity", "swimwear"},
	}
	// syllables make brand, manufacturer, store and company names
	// (dsdgen's "syllables" distribution).
	syllables = []string{"ought", "able", "pri", "ese", "anti", "cally", "ation", "eing", "bar", "n st"}
	// The brand name stems: i_brand is the category's stem, the class's
	// stem, " #" and a number 1..10, so Women's fragrances make
	// 'amalgimporto #1' and Men's accessories 'importoamalg #1' (q53, q63).
	categoryStems = []string{"scholar", "exporti", "edu pack", "univ", "corp", "importo", "maxi", "brand", "nameless", "amalg"}
	classStems    = []string{"amalg", "importo", "exporti", "scholar", "univ", "brand", "corp", "maxi", "nameless", "edu pack"}
	colors        = []string{"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue", "blush",
		"brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral", "cornflower", "cornsilk", "cream",
		"cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick", "floral", "forest", "frosted", "gainsboro", "ghost",
		"goldenrod", "green", "grey", "honeydew", "hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon",
		"light", "lime", "linen", "magenta", "maroon", "medium", "metallic", "midnight", "mint", "misty", "moccasin", "navajo",
		"navy", "olive", "orange", "orchid", "pale", "papaya", "peach", "peru", "pink", "plum", "powder", "puff", "purple",
		"red", "rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell", "sienna", "sky", "slate", "smoke", "snow",
		"spring", "steel", "tan", "thistle", "tomato", "turquoise", "violet", "wheat", "white", "yellow"}
	units = []string{"Box", "Bunch", "Bundle", "Carton", "Case", "Cup", "Dozen", "Dram", "Each", "Gram", "Gross", "Lb", "N/A",
		"Ounce", "Oz", "Pallet", "Pound", "Tbl", "Ton", "Tsp", "Unknown"}
	sizes        = []string{"economy", "extra large", "large", "medium", "N/A", "petite", "small"}
	containers   = []string{"Unknown"}
	formulations = []string{"powder", "gel", "liquid", "tablet", "cream", "spray"}

	// customer_demographics: the cross product of these (clause 3.5).
	genders    = []string{"M", "F"}
	maritals   = []string{"M", "S", "D", "W", "U"}
	educations = []string{"Primary", "Secondary", "College", "2 yr Degree", "4 yr Degree", "Advanced Degree", "Unknown"}
	credits    = []string{"Good", "Low Risk", "High Risk", "Unknown"}
	// household_demographics: the cross product of the income bands and these.
	buyPotentials = []string{">10000", "5001-10000", "1001-5000", "501-1000", "0-500", "Unknown"}

	// Addresses: the states and counties the queries name come first,
	// then others; each state has its GMT offset.
	states = []struct {
		code string
		gmt  int64 // hundredths
	}{
		{"TN", -500}, {"GA", -500}, {"TX", -600}, {"MS", -600}, {"KY", -500}, {"VA", -500}, {"OH", -500}, {"NM", -700},
		{"IN", -500}, {"IL", -600}, {"OR", -800}, {"CA", -800}, {"WI", -600}, {"WA", -800}, {"OK", -600}, {"NJ", -500},
		{"ND", -600}, {"MN", -600}, {"LA", -600}, {"IA", -600}, {"CT", -500}, {"CO", -700}, {"AR", -600}, {"NY", -500},
		{"MI", -500}, {"NC", -500}, {"SD", -600}, {"AL", -600}, {"MO", -600}, {"KS", -600}, {"NE", -600}, {"PA", -500},
		{"FL", -500}, {"SC", -500}, {"WV", -500}, {"MT", -700}, {"ID", -700}, {"UT", -700}, {"AZ", -700}, {"ME", -500},
	}
	counties = []string{"Williamson County", "Franklin Parish", "Bronx County", "Orange County", "Toole County",
		"Rush County", "La Porte County", "Jefferson County", "Dona Ana County", "Walker County", "Ziebach County",
		"Barrow County", "Daviess County", "Fairfield County", "Luce County", "Richland County", "Mobile County",
		"Huron County", "Kittitas County", "Marion County", "Perry County", "Jackson County", "Salem County", "Union County"}
	cities = []string{"Midway", "Fairview", "Edgewood", "Oak Grove", "Five Points", "Pleasant Hill", "Centerville",
		"Riverside", "Glendale", "Greenwood", "Union", "Salem", "Mount Zion", "Oakland", "Springdale", "Lakeside",
		"Newport", "Georgetown", "Friendship", "Antioch", "Bethel", "Clinton", "Franklin", "Greenville", "Hopewell",
		"Lebanon", "Marion", "Shiloh", "Spring Hill", "Woodland"}
	streetNames = []string{"Main", "Oak", "Park", "Elm", "Maple", "Cedar", "Pine", "Hill", "Lake", "Sunset", "Washington",
		"Lincoln", "Jackson", "Church", "Spring", "Highland", "Forest", "River", "Meadow", "Ridge", "College", "Center",
		"Walnut", "Dogwood", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth", "Wilson"}
	streetTypes   = []string{"Street", "ST", "Avenue", "Ave", "Boulevard", "Blvd", "Road", "RD", "Parkway", "Pkwy", "Way", "Wy", "Drive", "Dr.", "Circle", "Cir.", "Lane", "Ln", "Court", "Ct."}
	locationTypes = []string{"single family", "condo", "apartment"}

	firstNames  = []string{"James", "Mary", "John", "Patricia", "Robert", "Linda", "Michael", "Barbara", "William", "Elizabeth", "David", "Jennifer", "Richard", "Maria", "Charles", "Susan", "Joseph", "Margaret", "Thomas", "Dorothy", "Daniel", "Lisa", "Paul", "Nancy", "Mark", "Karen", "Donald", "Betty", "George", "Helen"}
	lastNames   = []string{"Smith", "Johnson", "Williams", "Jones", "Brown", "Davis", "Miller", "Wilson", "Moore", "Taylor", "Anderson", "Thomas", "Jackson", "White", "Harris", "Martin", "Thompson", "Garcia", "Martinez", "Robinson", "Clark", "Rodriguez", "Lewis", "Lee", "Walker", "Hall", "Allen", "Young", "King", "Wright"}
	salutations = []string{"Mr.", "Mrs.", "Ms.", "Miss", "Dr.", "Sir"}
	countries   = []string{"UNITED STATES", "CANADA", "MEXICO", "GERMANY", "FRANCE", "JAPAN", "CHINA", "INDIA", "BRAZIL", "CHILE", "PERU", "ITALY", "SPAIN", "NORWAY", "EGYPT"}

	dayNames  = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	shipTypes = []string{"EXPRESS", "NEXT DAY", "OVERNIGHT", "TWO DAY", "REGULAR", "LIBRARY"}
	shipCodes = []string{"AIR", "SURFACE", "SEA", "BIKE", "HAND CARRY", "MESSENGER"}
	carriers  = []string{"DHL", "BARIAN", "UPS", "FEDEX", "AIRBORNE", "USPS", "ZHOU", "ZOUROS", "MSC", "LATVIAN",
		"ALLIANCE", "ORIENTAL", "BOXBUNDLES", "GREAT EASTERN", "DIAMOND", "RUPEKSA", "GERMA", "HARMSTORF", "PRIVATECARRIER", "TBS"}
	cpTypes      = []string{"bi-annual", "quarterly", "monthly"}
	wpTypes      = []string{"general", "order", "protected", "welcome", "ad", "feedback", "dynamic"}
	ccClasses    = []string{"small", "medium", "large"}
	hours        = []string{"8AM-4PM", "8AM-12AM", "8AM-8AM"}
	purposes     = []string{"Unknown"}
	mktClasses   = []string{"A bit narrow forms matter animals. Consist", "Largely blank years put substantially deaf, new others. Question", "Wrong troops shall work sometimes in a opti", "Arms increase controversial, present so", "Rooms should run on a things. Leaves ca"}
	reasonTexts  = "reason %d"
	wordsForText = []string{"able", "about", "above", "across", "after", "again", "against", "agents", "all", "almost",
		"along", "also", "among", "an", "and", "another", "any", "areas", "around", "as", "at", "available", "back",
		"based", "because", "become", "before", "being", "best", "better", "between", "big", "black", "both", "business",
		"can", "capital", "central", "certain", "children", "clear", "close", "common", "community", "conditions",
		"costs", "could", "country", "current", "days", "different", "early", "economic", "end", "enough", "even",
		"every", "far", "few", "final", "financial", "first", "following", "foreign", "free", "full", "further",
		"general", "good", "great", "group", "hard", "head", "high", "home", "however", "human", "important", "in",
		"industry", "international", "just", "kind", "large", "last", "later", "less", "little", "local", "long",
		"major", "many", "may", "members", "might", "modern", "more", "most", "much", "must", "national", "natural",
		"necessary", "new", "next", "now", "numbers", "often", "old", "only", "open", "other", "own", "particular",
		"people", "perhaps", "personal", "political", "possible", "present", "private", "problems", "public", "quite",
		"real", "recent", "red", "right", "same", "several", "short", "simple", "single", "small", "social", "special",
		"strong", "such", "sure", "then", "those", "times", "together", "true", "under", "very", "well", "whole", "young"}
)
