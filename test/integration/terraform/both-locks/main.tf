# A workspace in the migration from DynamoDB to S3 native locking (Terraform 1.10+): with both
# use_lockfile and dynamodb_table, Terraform takes both locks with one lock info (one ID) and
# force-unlock releases both. Bucket, key and region come from -backend-config.
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile   = true
    dynamodb_table = "tf-locks-both"
  }
}

provider "aws" {
  region = "eu-west-1"
}

variable "name" {
  type = string
}

resource "aws_s3_bucket" "this" {
  bucket = var.name
}
