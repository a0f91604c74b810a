-- The example's database: applied by `toolexec serve` when bookstore.db does
-- not exist yet (the sqlite source's init field).
CREATE TABLE authors (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE books (
  id        INTEGER PRIMARY KEY,
  title     TEXT NOT NULL,
  author_id INTEGER NOT NULL REFERENCES authors(id),
  year      INTEGER NOT NULL,
  price     REAL NOT NULL,
  in_stock  INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX books_author ON books(author_id);
CREATE TABLE reviews (
  id      INTEGER PRIMARY KEY,
  book_id INTEGER NOT NULL REFERENCES books(id),
  rating  INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
  comment TEXT NOT NULL
);
INSERT INTO authors (id, name) VALUES
  (1, 'Ursula K. Le Guin'), (2, 'Stanisław Lem'), (3, 'Octavia E. Butler');
INSERT INTO books (id, title, author_id, year, price, in_stock) VALUES
  (1, 'A Wizard of Earthsea', 1, 1968, 9.99, 1),
  (2, 'The Left Hand of Darkness', 1, 1969, 12.50, 1),
  (3, 'The Dispossessed', 1, 1974, 11.00, 0),
  (4, 'Solaris', 2, 1961, 10.25, 1),
  (5, 'The Cyberiad', 2, 1965, 8.75, 1),
  (6, 'Kindred', 3, 1979, 13.40, 1),
  (7, 'Parable of the Sower', 3, 1993, 14.10, 0);
