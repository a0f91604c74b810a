package mongotest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The server speaks MongoDB's wire protocol to the official driver, and
// keeps what it is given.
func TestServer_AnswersTheDriver(t *testing.T) {
	srv := New(t)
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI))
	require.NoError(t, err)
	defer func() { _ = client.Disconnect(context.Background()) }()
	ctx := context.Background()
	coll := client.Database("db").Collection("c")
	_, err = coll.InsertOne(ctx, bson.D{{Key: "name", Value: "apple"}})
	require.NoError(t, err)
	var got bson.M
	require.NoError(t, coll.FindOne(ctx, bson.D{{Key: "name", Value: "apple"}}).Decode(&got))
	assert.Equal(t, "apple", got["name"])

	var hello bson.M
	require.NoError(t, client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&hello))
	assert.Equal(t, "7.0.42", hello["version"], "FerretDB 1.24 answers as MongoDB 7.0")
}
