package config

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// mysqlSource checks a mysql (or mariadb) source, toolbox's form: host
// and port (default 3306) required, user, password, database,
// queryParams (the driver's DSN parameters) and queryTimeout optional.
// A mariadb source is read as a mysql one.
func (p *parser) mysqlSource(what string, nameNode *yaml.Node, s *Source) {
	s.Kind = KindMySQL
	if s.Host == "" {
		p.errorf(nameNode, "%s: mysql needs host", what)
	}
	if s.Port == "" {
		s.Port = "3306"
	} else if n, err := strconv.Atoi(s.Port); err != nil || n <= 0 || n > 65535 {
		p.errorf(nameNode, "%s: port %s is not a port number", what, p.show(s.Port))
	}
}
